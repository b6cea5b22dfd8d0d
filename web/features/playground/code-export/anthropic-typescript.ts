/**
 * The request in the Messages form with `@anthropic-ai/sdk`. Its base URL omits `/v1`:
 * the client adds `/v1/messages` itself.
 *
 * @see https://docs.anthropic.com/en/api/messages
 */
import type { ChatRequest } from '../../../../contract/workbench-api';
import {
  alternatingTurns,
  contentText,
  defaultKeyVariable,
  gatewayRoot,
  parseArguments,
  readToolChoice,
  redactKeys,
  sdkRetriesOffComment,
  toolFunctions,
  type BlockWriter,
  type CodeExportInput,
} from './shared';

type ContentBlock = Record<string, unknown>;
interface MessagesFormMessage {
  role: 'user' | 'assistant';
  content: ContentBlock[];
}

/** The Messages form requires `max_tokens`; this is used when the playground left it unset. */
export const messagesFormDefaultMaxTokens = 1024;

const messagesFormBlocks: BlockWriter<ContentBlock> = {
  text: (text) => ({ type: 'text', text }),
  image: (url, data) =>
    data
      ? { type: 'image', source: { type: 'base64', media_type: data.mediaType, data: data.data } }
      : { type: 'image', source: { type: 'url', url } },
  toolCall: (call) => ({
    type: 'tool_use',
    id: call.id,
    name: call.function.name,
    input: parseArguments(call.function.arguments),
  }),
  toolResult: (message) => ({
    type: 'tool_result',
    tool_use_id: message.tool_call_id ?? '',
    content: contentText(message.content),
  }),
};

/**
 * `required` is the Messages form's `any`; a named function is a `tool`.
 * @see https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use
 */
export function toMessagesToolChoice(value: unknown): Record<string, unknown> | null {
  const choice = readToolChoice(value);
  if (choice === null) return null;
  switch (choice) {
    case 'auto':
      return { type: 'auto' };
    case 'none':
      return { type: 'none' };
    case 'required':
      return { type: 'any' };
    default:
      return { type: 'tool', name: choice.name };
  }
}

/**
 * A JSON schema is `output_config.format` (structured outputs). The form has no "any JSON" mode,
 * so `json_object` has no field to go in: the snippet says so instead of dropping it silently.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/structured-outputs
 */
function toMessagesOutputFormat(
  format: ChatRequest['request']['response_format'],
): { format: Record<string, unknown> } | { note: string } | null {
  switch (format?.type) {
    case 'json_schema':
      return { format: { type: 'json_schema', schema: format.json_schema.schema } };
    case 'json_object':
      return {
        note: '// The Messages form has no JSON mode without a schema (`json_object`); ask for JSON in the prompt, or give a schema.',
      };
    case 'text':
    default:
      return null;
  }
}

/**
 * System messages become `system`; tool results become `tool_result` blocks of a user turn;
 * consecutive turns of one role are merged, because the Messages form alternates roles.
 */
export function toMessagesForm(request: ChatRequest['request']): {
  system: string | null;
  messages: MessagesFormMessage[];
} {
  const { system, turns } = alternatingTurns(request.messages, messagesFormBlocks);
  return { system, messages: turns.map((turn) => ({ role: turn.role, content: turn.blocks })) };
}

export function generateAnthropicTypeScript(input: CodeExportInput): string {
  const keyVariable = input.keyVariable ?? defaultKeyVariable;
  const { request } = input;
  const form = toMessagesForm(request);
  const body: Record<string, unknown> = {
    model: request.model,
    max_tokens: request.max_tokens ?? messagesFormDefaultMaxTokens,
    ...(form.system !== null ? { system: form.system } : {}),
    messages: form.messages,
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.top_p !== undefined ? { top_p: request.top_p } : {}),
    ...(request.stop && request.stop.length > 0 ? { stop_sequences: request.stop } : {}),
  };
  const tools = toolFunctions(request);
  if (tools.length > 0) {
    body.tools = tools.map((tool) => ({
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      input_schema: tool.parameters ?? { type: 'object', properties: {} },
    }));
    const toolChoice = toMessagesToolChoice(request.tool_choice);
    if (toolChoice !== null) body.tool_choice = toolChoice;
  }
  const outputFormat = toMessagesOutputFormat(request.response_format);
  if (outputFormat !== null && 'format' in outputFormat)
    body.output_config = { format: outputFormat.format };
  const bodyText = JSON.stringify(body, null, 2);
  const lines = [
    "import Anthropic from '@anthropic-ai/sdk';",
    '',
    'const client = new Anthropic({',
    `  apiKey: process.env.${keyVariable},`,
    `  baseURL: ${JSON.stringify(gatewayRoot(input.gatewayBaseUrl))},`,
    `  ${sdkRetriesOffComment}`,
    '  maxRetries: 0,',
    '});',
    '',
  ];
  if (request.seed !== undefined) lines.push('// The Messages form has no `seed`; it is left out.');
  if (outputFormat !== null && 'note' in outputFormat) lines.push(outputFormat.note);
  const printToolCalls =
    tools.length > 0
      ? [
          'for (const block of message.content) {',
          "  if (block.type === 'tool_use') {",
          '    console.info(`tool call ${block.id}: ${block.name}(${JSON.stringify(block.input)})`);',
          '  }',
          '}',
        ]
      : [];
  if (request.stream) {
    lines.push(
      `const stream = client.messages.stream(${bodyText});`,
      '',
      "stream.on('text', (text) => process.stdout.write(text));",
      'const message = await stream.finalMessage();',
      // The streamed text ends without a newline: the usage must not be glued to it.
      "process.stdout.write('\\n');",
      ...printToolCalls,
      'console.info(message.usage);',
    );
  } else {
    lines.push(
      `const message = await client.messages.create(${bodyText});`,
      '',
      ...(tools.length > 0
        ? [
            'for (const block of message.content) {',
            "  if (block.type === 'text') console.info(block.text);",
            '}',
            ...printToolCalls,
          ]
        : ['console.info(message.content);']),
      'console.info(message.usage);',
    );
  }
  return redactKeys(lines.join('\n'));
}
