/**
 * What every code generator shares: its input, the gateway base addresses, the `openai` clients'
 * set-up, and the safety net that keeps a key out of any snippet.
 */
import type { ChatMessage, ChatRequest, InferenceApi } from '../../../../contract/workbench-api';

/** The request to export and where the gateway is. Never a key: snippets read it from the environment. */
export interface CodeExportInput {
  /** The gateway's root as `GET /api/health` reports it (a trailing `/v1` is accepted). */
  gatewayBaseUrl: string;
  /** The chat-completion request the playground sends (the BFF body's `request`). */
  request: ChatRequest['request'];
  /** The route the playground sends it to: the OpenAI snippets follow it; chat when absent. */
  api?: InferenceApi;
  /** The environment variable the snippet reads the key from. */
  keyVariable?: string;
}

export const defaultKeyVariable = 'GATEWAY_API_KEY';

/**
 * Why every SDK snippet turns its client's own retries off: the gateway already retries and falls
 * back (before the first byte only), and a client retrying on top repeats, and bills, requests.
 */
export const sdkRetriesOffComment =
  '// The gateway retries and falls back itself: no SDK retries on top.';

/**
 * The gateway's root without `/v1`, credentials, query or fragment: a `?key=` or
 * `user:password@` in the configured address must never reach a snippet.
 */
export function gatewayRoot(baseUrl: string): string {
  let root = baseUrl.trim();
  try {
    const url = new URL(root);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    root = url.toString();
  } catch {
    // Not an absolute URL (e.g. a placeholder): only the path cleanup below applies.
    root = root.replace(/[?#].*$/, '');
  }
  root = root.replace(/\/+$/, '');
  if (root.endsWith('/v1')) root = root.slice(0, -3);
  return root.replace(/\/+$/, '');
}

/** The chat-completion libraries' base address includes `/v1`. */
export function openAiBaseUrl(baseUrl: string): string {
  return `${gatewayRoot(baseUrl)}/v1`;
}

/** A JSON value as a Python literal: JSON strings are valid Python strings; the rest is mapped. */
export function toPythonLiteral(value: unknown, indent = 0): string {
  const padding = '    '.repeat(indent + 1);
  const closing = '    '.repeat(indent);
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'None';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => `${padding}${toPythonLiteral(item, indent + 1)},`).join('\n')}\n${closing}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(
    ([, item]) => item !== undefined,
  );
  if (entries.length === 0) return '{}';
  return `{\n${entries
    .map(([key, item]) => `${padding}${JSON.stringify(key)}: ${toPythonLiteral(item, indent + 1)},`)
    .join('\n')}\n${closing}}`;
}

/** Keyword arguments of a Python call, one a line; fields left undefined are not sent. */
export function pythonArguments(body: object): string {
  return Object.entries(body)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `    ${name}=${toPythonLiteral(value, 1)},`)
    .join('\n');
}

/** The `openai` Python client on the gateway, its lines up to the call: key from the environment. */
export function openAiPythonClient(gatewayBaseUrl: string, keyVariable: string): string[] {
  return [
    'import os',
    '',
    'from openai import OpenAI',
    '',
    'client = OpenAI(',
    `    api_key=os.environ[${JSON.stringify(keyVariable)}],`,
    `    base_url=${JSON.stringify(openAiBaseUrl(gatewayBaseUrl))},`,
    `    ${sdkRetriesOffComment.replace('//', '#')}`,
    '    max_retries=0,',
    ')',
    '',
  ];
}

/** The `openai` JavaScript client on the gateway, its lines up to the call: key from the environment. */
export function openAiTypeScriptClient(gatewayBaseUrl: string, keyVariable: string): string[] {
  return [
    "import OpenAI from 'openai';",
    '',
    'const client = new OpenAI({',
    `  apiKey: process.env.${keyVariable},`,
    `  baseURL: ${JSON.stringify(openAiBaseUrl(gatewayBaseUrl))},`,
    `  ${sdkRetriesOffComment}`,
    '  maxRetries: 0,',
    '});',
    '',
  ];
}

const keyShapedPattern = /\bsk-[A-Za-z0-9_-]{8,}/g;

/**
 * Replaces anything shaped like a key. Snippets never take a key as input, but a key pasted into
 * a message or a prompt would otherwise be copied into code that ends up in a repository.
 */
export function redactKeys(text: string): string {
  return text.replace(keyShapedPattern, 'sk-…redacted');
}

/** An image sent inline: a `data:` URL's media type and base64 data. */
export interface DataUrl {
  mediaType: string;
  data: string;
}

/** `data:image/png;base64,AAAA` → its media type and data; null for other URLs. */
export function parseDataUrl(url: string): DataUrl | null {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (!match) return null;
  return { mediaType: match[1] ?? 'application/octet-stream', data: match[2] ?? '' };
}

/** The text of a message's content, whatever its form. */
export function contentText(content: ChatMessage['content']): string {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .filter((text) => text !== '')
    .join('\n');
}

/** A tool call's arguments as an object; text that is not JSON is kept under `_raw`. */
export function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text === '' ? '{}' : text) as unknown;
  } catch {
    return { _raw: text };
  }
}

/** The tool definitions of the request, read leniently (they were checked when typed). */
export function toolFunctions(
  request: ChatRequest['request'],
): { name: string; description?: string; parameters?: unknown }[] {
  const functions: { name: string; description?: string; parameters?: unknown }[] = [];
  for (const tool of request.tools ?? []) {
    if (typeof tool !== 'object' || tool === null || !('function' in tool)) continue;
    const definition = (
      tool as { function: { name?: unknown; description?: unknown; parameters?: unknown } }
    ).function;
    if (typeof definition.name !== 'string') continue;
    functions.push({
      name: definition.name,
      ...(typeof definition.description === 'string'
        ? { description: definition.description }
        : {}),
      ...(definition.parameters !== undefined ? { parameters: definition.parameters } : {}),
    });
  }
  return functions;
}

/** The request's `tool_choice`, read leniently: a mode, a named function, or null when unset. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

export function readToolChoice(value: unknown): ToolChoice | null {
  if (value === 'auto' || value === 'none' || value === 'required') return value;
  if (typeof value === 'object' && value !== null && 'function' in value) {
    const name = (value as { function: { name?: unknown } }).function.name;
    if (typeof name === 'string') return { name };
  }
  return null;
}

type ToolCall = NonNullable<ChatMessage['tool_calls']>[number];

/** How a native form (Messages, Gemini) writes each piece of a conversation as one of its blocks. */
export interface BlockWriter<Block> {
  text(text: string): Block;
  /** `data` is the inline image of a `data:` URL, null for an image by address. */
  image(url: string, data: DataUrl | null): Block;
  toolCall(call: ToolCall): Block;
  /** `callName`: the name of the tool call the result answers, when an earlier turn made it. */
  toolResult(message: ChatMessage, callName: string | undefined): Block;
}

/** A turn of a native form, before it is written with that form's field names. */
export interface Turn<Block> {
  role: 'user' | 'assistant';
  blocks: Block[];
}

/**
 * The conversation as the native forms take it: system messages joined into one text, tool
 * results as blocks of a user turn, and consecutive turns of one role merged, because those
 * forms alternate roles.
 */
export function alternatingTurns<Block>(
  messages: ChatMessage[],
  write: BlockWriter<Block>,
): { system: string | null; turns: Turn<Block>[] } {
  const systemParts: string[] = [];
  const turns: Turn<Block>[] = [];
  const callNames = new Map<string, string>();
  const push = (role: Turn<Block>['role'], blocks: Block[]) => {
    const last = turns.at(-1);
    if (last && last.role === role) last.blocks.push(...blocks);
    else turns.push({ role, blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        systemParts.push(contentText(message.content));
        break;
      case 'user':
        push('user', contentBlocks(message.content, write));
        break;
      case 'assistant': {
        const text = contentText(message.content);
        for (const call of message.tool_calls ?? []) callNames.set(call.id, call.function.name);
        push('assistant', [
          ...(text !== '' ? [write.text(text)] : []),
          ...(message.tool_calls ?? []).map((call) => write.toolCall(call)),
        ]);
        break;
      }
      case 'tool':
        push('user', [write.toolResult(message, callNames.get(message.tool_call_id ?? ''))]);
        break;
      default:
        break;
    }
  }
  return { system: systemParts.length > 0 ? systemParts.join('\n\n') : null, turns };
}

/** A user message's content as blocks; an empty text sends none. */
function contentBlocks<Block>(content: ChatMessage['content'], write: BlockWriter<Block>): Block[] {
  if (content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [write.text(content)];
  return content.map((part) =>
    part.type === 'text'
      ? write.text(part.text)
      : write.image(part.image_url.url, parseDataUrl(part.image_url.url)),
  );
}
