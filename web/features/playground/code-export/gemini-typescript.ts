/**
 * The request in the Gemini form with `@google/genai`. The client's `httpOptions.baseUrl` is the
 * gateway's root; the client adds `/v1beta/models/<model>:generateContent` itself.
 *
 * @see https://ai.google.dev/api/generate-content
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

type Part = Record<string, unknown>;
interface GeminiContent {
  role: 'user' | 'model';
  parts: Part[];
}

/** A tool result's text as the object `functionResponse.response` requires. */
function toolResponse(text: string): unknown {
  const parsed = parseArguments(text);
  return typeof parsed === 'object' &&
    parsed !== null &&
    !Array.isArray(parsed) &&
    !('_raw' in parsed)
    ? parsed
    : { result: text };
}

const geminiFormParts: BlockWriter<Part> = {
  text: (text) => ({ text }),
  image: (url, data) =>
    data
      ? { inlineData: { mimeType: data.mediaType, data: data.data } }
      : { fileData: { fileUri: url } },
  toolCall: (call) => ({
    functionCall: { name: call.function.name, args: parseArguments(call.function.arguments) },
  }),
  toolResult: (message, callName) => ({
    functionResponse: {
      name: message.name ?? callName ?? 'tool',
      response: toolResponse(contentText(message.content)),
    },
  }),
};

/**
 * `required` is `ANY`; a named function is `ANY` with only that function allowed.
 * @see https://ai.google.dev/api/caching#FunctionCallingConfig
 */
export function toGeminiToolConfig(value: unknown): Record<string, unknown> | null {
  const choice = readToolChoice(value);
  if (choice === null) return null;
  switch (choice) {
    case 'auto':
      return { functionCallingConfig: { mode: 'AUTO' } };
    case 'none':
      return { functionCallingConfig: { mode: 'NONE' } };
    case 'required':
      return { functionCallingConfig: { mode: 'ANY' } };
    default:
      return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } };
  }
}

/**
 * JSON is `responseMimeType: application/json`; a schema goes in `responseJsonSchema`.
 * @see https://ai.google.dev/gemini-api/docs/structured-output
 */
export function toGeminiResponseFormat(
  format: ChatRequest['request']['response_format'],
): Record<string, unknown> {
  switch (format?.type) {
    case 'json_object':
      return { responseMimeType: 'application/json' };
    case 'json_schema':
      return {
        responseMimeType: 'application/json',
        responseJsonSchema: format.json_schema.schema,
      };
    case 'text':
    default:
      return {};
  }
}

/** System messages become `systemInstruction`; assistant turns are `model`; tool results `functionResponse`. */
export function toGeminiForm(request: ChatRequest['request']): {
  systemInstruction: string | null;
  contents: GeminiContent[];
} {
  const { system, turns } = alternatingTurns(request.messages, geminiFormParts);
  return {
    systemInstruction: system,
    contents: turns.map((turn) => ({
      role: turn.role === 'assistant' ? 'model' : 'user',
      parts: turn.blocks,
    })),
  };
}

export function generateGeminiTypeScript(input: CodeExportInput): string {
  const keyVariable = input.keyVariable ?? defaultKeyVariable;
  const { request } = input;
  const form = toGeminiForm(request);
  const config: Record<string, unknown> = {
    ...(form.systemInstruction !== null ? { systemInstruction: form.systemInstruction } : {}),
    ...(request.max_tokens !== undefined ? { maxOutputTokens: request.max_tokens } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.top_p !== undefined ? { topP: request.top_p } : {}),
    ...(request.stop && request.stop.length > 0 ? { stopSequences: request.stop } : {}),
    ...(request.seed !== undefined ? { seed: request.seed } : {}),
    ...toGeminiResponseFormat(request.response_format),
  };
  const tools = toolFunctions(request);
  if (tools.length > 0) {
    config.tools = [
      {
        functionDeclarations: tools.map((tool) => ({
          name: tool.name,
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          ...(tool.parameters !== undefined ? { parametersJsonSchema: tool.parameters } : {}),
        })),
      },
    ];
    const toolConfig = toGeminiToolConfig(request.tool_choice);
    if (toolConfig !== null) config.toolConfig = toolConfig;
  }
  const body = {
    model: request.model,
    contents: form.contents,
    ...(Object.keys(config).length > 0 ? { config } : {}),
  };
  const bodyText = JSON.stringify(body, null, 2);
  const lines = [
    "import { GoogleGenAI } from '@google/genai';",
    '',
    'const ai = new GoogleGenAI({',
    `  apiKey: process.env.${keyVariable},`,
    // `attempts` counts the first request: 1 is no retry (see `HttpRetryOptions`).
    `  ${sdkRetriesOffComment}`,
    `  httpOptions: {`,
    `    baseUrl: ${JSON.stringify(gatewayRoot(input.gatewayBaseUrl))},`,
    '    retryOptions: { attempts: 1 },',
    '  },',
    '});',
    '',
  ];
  const printFunctionCalls = [
    'for (const call of functionCalls) {',
    '  console.info(`tool call: ${call.name}(${JSON.stringify(call.args)})`);',
    '}',
  ];
  if (request.stream) {
    lines.push(
      `const stream = await ai.models.generateContentStream(${bodyText});`,
      '',
      ...(tools.length > 0
        ? [
            'const functionCalls = [];',
            'for await (const chunk of stream) {',
            "  process.stdout.write(chunk.text ?? '');",
            '  functionCalls.push(...(chunk.functionCalls ?? []));',
            '}',
            "process.stdout.write('\\n');",
            ...printFunctionCalls,
          ]
        : [
            'for await (const chunk of stream) {',
            "  process.stdout.write(chunk.text ?? '');",
            '}',
            "process.stdout.write('\\n');",
          ]),
    );
  } else {
    lines.push(
      `const response = await ai.models.generateContent(${bodyText});`,
      '',
      "console.info(response.text ?? '');",
      ...(tools.length > 0
        ? ['const functionCalls = response.functionCalls ?? [];', ...printFunctionCalls]
        : []),
      'console.info(response.usageMetadata);',
    );
  }
  return redactKeys(lines.join('\n'));
}
