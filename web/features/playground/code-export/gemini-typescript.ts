/**
 * The request in the Gemini form with `@google/genai`. The client's `httpOptions.baseUrl` is the
 * gateway's root; the client adds `/v1beta/models/<model>:generateContent` itself.
 *
 * @see https://ai.google.dev/api/generate-content
 */
import type { ChatRequest } from '../../../../contract/workbench-api';
import {
  contentText,
  defaultKeyVariable,
  gatewayRoot,
  parseArguments,
  parseDataUrl,
  redactKeys,
  toolFunctions,
  type CodeExportInput,
} from './shared';

type Part = Record<string, unknown>;
interface GeminiContent {
  role: 'user' | 'model';
  parts: Part[];
}

function userParts(content: ChatRequest['request']['messages'][number]['content']): Part[] {
  if (content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  return content.map((part) => {
    if (part.type === 'text') return { text: part.text };
    const data = parseDataUrl(part.image_url.url);
    return data
      ? { inlineData: { mimeType: data.mediaType, data: data.data } }
      : { fileData: { fileUri: part.image_url.url } };
  });
}

/** A tool result's text as the object `functionResponse.response` requires. */
function toolResponse(text: string): unknown {
  const parsed = parseArguments(text);
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && !('_raw' in parsed)
    ? parsed
    : { result: text };
}

/** System messages become `systemInstruction`; assistant turns are `model`; tool results `functionResponse`. */
export function toGeminiForm(request: ChatRequest['request']): {
  systemInstruction: string | null;
  contents: GeminiContent[];
} {
  const systemParts: string[] = [];
  const contents: GeminiContent[] = [];
  const toolNames = new Map<string, string>();
  const push = (role: 'user' | 'model', parts: Part[]) => {
    const last = contents.at(-1);
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const message of request.messages) {
    switch (message.role) {
      case 'system':
        systemParts.push(contentText(message.content));
        break;
      case 'user':
        push('user', userParts(message.content));
        break;
      case 'assistant': {
        const text = contentText(message.content);
        for (const call of message.tool_calls ?? []) toolNames.set(call.id, call.function.name);
        push('model', [
          ...(text !== '' ? [{ text }] : []),
          ...(message.tool_calls ?? []).map((call) => ({
            functionCall: { name: call.function.name, args: parseArguments(call.function.arguments) },
          })),
        ]);
        break;
      }
      case 'tool':
        push('user', [
          {
            functionResponse: {
              name: message.name ?? toolNames.get(message.tool_call_id ?? '') ?? 'tool',
              response: toolResponse(contentText(message.content)),
            },
          },
        ]);
        break;
      default:
        break;
    }
  }
  return { systemInstruction: systemParts.length > 0 ? systemParts.join('\n\n') : null, contents };
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
    `  httpOptions: { baseUrl: ${JSON.stringify(gatewayRoot(input.gatewayBaseUrl))} },`,
    '});',
    '',
  ];
  if (request.stream) {
    lines.push(
      `const stream = await ai.models.generateContentStream(${bodyText});`,
      '',
      'for await (const chunk of stream) {',
      "  process.stdout.write(chunk.text ?? '');",
      '}',
    );
  } else {
    lines.push(
      `const response = await ai.models.generateContent(${bodyText});`,
      '',
      'console.info(response.text);',
      'console.info(response.usageMetadata);',
    );
  }
  return redactKeys(lines.join('\n'));
}
