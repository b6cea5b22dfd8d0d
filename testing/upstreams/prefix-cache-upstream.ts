/**
 * A test upstream on loopback that caches prompts by prefix as the vendors do, and answers an
 * agent session turn by turn (`agent-session.ts`), in each vendor's wire: Anthropic's Messages,
 * OpenAI's chat completions and Gemini's generateContent. Per key (and OpenAI's
 * `prompt_cache_key`) it remembers the prefixes it has seen, and reports in the usage what it read
 * from and wrote to its cache:
 *
 * - Anthropic: prefixes are written at cache breakpoints (`cache_control` on a tool, system block
 *   or message block; a top-level one marks the last block), with their `ttl`; a request reads the
 *   longest prefix written before, ending at a block within 20 blocks before one of its
 *   breakpoints, and writes up to its last breakpoint. Tools, system, then messages.
 * - OpenAI and Gemini: automatic, for prompts of 1,024 tokens or more, the longest known prefix in
 *   whole blocks of 128 tokens; every block of a prompt is remembered.
 *
 * A prompt is read as the vendor renders it, not as JSON text: its roles, texts, tool calls and
 * tool definitions, in order, so two bodies saying the same in a different key order cache alike.
 * A token is four characters. Minimum cacheable lengths per breakpoint and expiry are not modelled.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching
 * @see https://platform.openai.com/docs/guides/prompt-caching
 * @see https://ai.google.dev/gemini-api/docs/caching#implicit-caching
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { UpstreamKind } from '../../gateway/providers/upstream/provider-config';
import type { AgentSession } from './agent-session';

/** What the upstream served one request, as it reported it (prompt counts include the cache). */
export type ServedUsage = {
  kind: UpstreamKind;
  promptTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  cacheWriteHourTokens: number;
  completionTokens: number;
};

export type PrefixCacheUpstream = {
  url: string;
  /** Every answered request's usage, in order. */
  served: ServedUsage[];
  /** Forgets every cached prefix and every served usage. */
  clear(): void;
  close(): Promise<void>;
};

type Json = Record<string, unknown>;

/** Characters per token. */
const TOKEN_CHARACTERS = 4;
const tokensOf = (text: string) => Math.ceil(text.length / TOKEN_CHARACTERS);
/** OpenAI's automatic caching: from 1,024 tokens, in blocks of 128. */
const AUTOMATIC_MINIMUM_TOKENS = 1_024;
const AUTOMATIC_BLOCK_TOKENS = 128;
/** How far back from a breakpoint Anthropic looks for a prefix it wrote. */
const LOOKBACK_BLOCKS = 20;

/** JSON with keys sorted: what a value says, whatever order its keys came in. */
function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Json)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${stable(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const chain = (previous: string, piece: string) =>
  createHash('sha256').update(previous).update('\u0000').update(piece).digest('hex');

const asArray = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);

type Block = { text: string; cache?: { ttl: '5m' | '1h' } };

/** Anthropic's cacheable blocks, in the order it caches them: tools, system, messages. */
function anthropicBlocks(body: Json): Block[] {
  const blocks: Block[] = [];
  const push = (text: string, value: Json) => {
    const cache = value.cache_control as { ttl?: string } | undefined;
    blocks.push({ text, ...(cache && { cache: { ttl: cache.ttl === '1h' ? '1h' : '5m' } }) });
  };
  const without = ({ cache_control: _cache, ...rest }: Json) => rest;
  for (const tool of asArray(body.tools)) push(`tool ${stable(without(tool))}`, tool);
  const system =
    typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : body.system;
  for (const block of asArray(system)) push(`system ${stable(without(block))}`, block);
  for (const message of asArray(body.messages)) {
    const content =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : asArray(message.content);
    for (const block of content) push(`${String(message.role)} ${stable(without(block))}`, block);
  }
  const top = body.cache_control as { ttl?: string } | undefined;
  const last = blocks.at(-1);
  if (top && last) last.cache = { ttl: top.ttl === '1h' ? '1h' : '5m' };
  return blocks;
}

/** OpenAI's prompt as rendered: tool definitions, then each message's role, text and calls. */
function openAiPrompt(body: Json): string {
  const pieces = asArray(body.tools).map((tool) => {
    const fn = tool.function as Json;
    return `<tool>${stable({ name: fn.name, description: fn.description, parameters: fn.parameters })}`;
  });
  for (const message of asArray(body.messages)) {
    const content =
      typeof message.content === 'string'
        ? message.content
        : asArray(message.content)
            .map((part) => (typeof part.text === 'string' ? part.text : stable(part)))
            .join('');
    const calls = asArray(message.tool_calls).map((call) => {
      const fn = call.function as Json;
      return `<call ${String(call.id)}>${String(fn.name)} ${String(fn.arguments)}`;
    });
    const result = message.tool_call_id ? `<result ${String(message.tool_call_id)}>` : '';
    pieces.push(`<${String(message.role)}>${result}${content}${calls.join('')}`);
  }
  return pieces.join('\n');
}

/** Gemini's prompt as rendered: system instruction, function declarations, then the turns. */
function geminiPrompt(body: Json): string {
  const pieces: string[] = [];
  const system = body.systemInstruction as Json | undefined;
  for (const part of asArray(system?.parts)) pieces.push(`<system>${String(part.text)}`);
  for (const tool of asArray(body.tools)) {
    for (const declaration of asArray(tool.functionDeclarations)) {
      pieces.push(
        `<tool>${stable({
          name: declaration.name,
          description: declaration.description,
          parameters: declaration.parametersJsonSchema ?? declaration.parameters,
        })}`,
      );
    }
  }
  for (const content of asArray(body.contents)) {
    const parts = asArray(content.parts).map((part) => {
      if (typeof part.text === 'string') return part.text;
      const call = part.functionCall as Json | undefined;
      if (call) return `<call>${String(call.name)} ${stable(call.args)}`;
      const result = part.functionResponse as Json | undefined;
      if (result) return `<result>${String(result.name)} ${stable(result.response)}`;
      return stable(part);
    });
    pieces.push(`<${String(content.role)}>${parts.join('')}`);
  }
  return pieces.join('\n');
}

type CacheUse = { total: number; read: number; write: number; writeHour: number };

/** Breakpoint caching over blocks: Anthropic's rules. */
function breakpointCache(known: Set<string>, blocks: Block[]): CacheUse {
  const ends: number[] = [];
  const hashes: string[] = [];
  let total = 0;
  let hash = '';
  for (const block of blocks) {
    total += tokensOf(block.text);
    hash = chain(hash, block.text);
    ends.push(total);
    hashes.push(hash);
  }
  const breakpoints = blocks.flatMap((block, index) => (block.cache ? [index] : []));
  if (breakpoints.length === 0) return { total, read: 0, write: 0, writeHour: 0 };
  let read = 0;
  for (const breakpoint of breakpoints) {
    for (let at = breakpoint; at >= Math.max(0, breakpoint - LOOKBACK_BLOCKS + 1); at -= 1) {
      if (known.has(hashes[at]!)) {
        read = Math.max(read, ends[at]!);
        break;
      }
    }
  }
  const last = breakpoints.at(-1)!;
  const write = Math.max(0, ends[last]! - read);
  const lastHour = breakpoints.filter((index) => blocks[index]!.cache!.ttl === '1h').at(-1);
  const writeHour =
    lastHour === undefined ? 0 : Math.min(write, Math.max(0, ends[lastHour]! - read));
  for (const breakpoint of breakpoints) known.add(hashes[breakpoint]!);
  return { total, read, write, writeHour };
}

/** Automatic prefix caching over a rendered prompt: OpenAI's (and Gemini's implicit) rules. */
function automaticCache(known: Set<string>, prompt: string): CacheUse {
  const total = tokensOf(prompt);
  const blockCharacters = AUTOMATIC_BLOCK_TOKENS * TOKEN_CHARACTERS;
  const hashes: string[] = [];
  let hash = '';
  for (let end = blockCharacters; end <= prompt.length; end += blockCharacters) {
    hash = chain(hash, prompt.slice(end - blockCharacters, end));
    hashes.push(hash);
  }
  let read = 0;
  if (total >= AUTOMATIC_MINIMUM_TOKENS) {
    const longest = hashes.findLastIndex((candidate) => known.has(candidate));
    read = (longest + 1) * AUTOMATIC_BLOCK_TOKENS;
    if (read < AUTOMATIC_MINIMUM_TOKENS) read = 0;
    for (const candidate of hashes) known.add(candidate);
  }
  return { total, read, write: 0, writeHour: 0 };
}

/** The turn a request is at: the model's turns it already holds. */
const turnOf = (turns: Json[], role: string) => turns.filter((turn) => turn.role === role).length;

export async function startPrefixCacheUpstream(
  session: AgentSession,
): Promise<PrefixCacheUpstream> {
  const caches = new Map<string, Set<string>>();
  const served: ServedUsage[] = [];
  const cacheFor = (key: string) => {
    const found = caches.get(key) ?? new Set<string>();
    caches.set(key, found);
    return found;
  };

  const answer = (kind: UpstreamKind, key: string, body: Json): Json => {
    const turns = asArray(kind === 'gemini' ? body.contents : body.messages);
    const turn = turnOf(turns, kind === 'gemini' ? 'model' : 'assistant');
    const reply = session.exchanges[turn]?.reply ?? { text: 'Done.', toolCalls: [] };
    const completion = tokensOf(reply.text + stable(reply.toolCalls));
    if (kind === 'anthropic') {
      const use = breakpointCache(cacheFor(`anthropic ${key}`), anthropicBlocks(body));
      served.push(usageOf(kind, use, completion));
      return {
        id: `msg_turn_${turn}`,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [
          ...(reply.text === '' ? [] : [{ type: 'text', text: reply.text }]),
          ...reply.toolCalls.map((call) => ({ type: 'tool_use', ...call })),
        ],
        stop_reason: reply.toolCalls.length > 0 ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: {
          input_tokens: use.total - use.read - use.write,
          cache_read_input_tokens: use.read,
          cache_creation_input_tokens: use.write,
          cache_creation: {
            ephemeral_5m_input_tokens: use.write - use.writeHour,
            ephemeral_1h_input_tokens: use.writeHour,
          },
          output_tokens: completion,
        },
      };
    }
    if (kind === 'openai-compatible') {
      const cacheKey = `openai ${key} ${typeof body.prompt_cache_key === 'string' ? body.prompt_cache_key : ''}`;
      const use = automaticCache(cacheFor(cacheKey), openAiPrompt(body));
      served.push(usageOf(kind, use, completion));
      return {
        id: `chatcmpl-turn-${turn}`,
        object: 'chat.completion',
        created: 1_764_633_600,
        model: body.model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: reply.text === '' ? null : reply.text,
              ...(reply.toolCalls.length > 0 && {
                tool_calls: reply.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: JSON.stringify(call.input) },
                })),
              }),
            },
            finish_reason: reply.toolCalls.length > 0 ? 'tool_calls' : 'stop',
          },
        ],
        usage: {
          prompt_tokens: use.total,
          completion_tokens: completion,
          total_tokens: use.total + completion,
          prompt_tokens_details: { cached_tokens: use.read },
        },
      };
    }
    const use = automaticCache(cacheFor(`gemini ${key}`), geminiPrompt(body));
    served.push(usageOf(kind, use, completion));
    return {
      candidates: [
        {
          index: 0,
          content: {
            role: 'model',
            parts: [
              ...(reply.text === '' ? [] : [{ text: reply.text }]),
              ...reply.toolCalls.map((call) => ({
                functionCall: { id: call.id, name: call.name, args: call.input },
              })),
            ],
          },
          finishReason: 'STOP',
        },
      ],
      usageMetadata: {
        promptTokenCount: use.total,
        candidatesTokenCount: completion,
        totalTokenCount: use.total + completion,
        cachedContentTokenCount: use.read,
      },
      modelVersion: 'gemini-upstream-1',
    };
  };

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      const kind: UpstreamKind | null = path.startsWith('/v1/messages')
        ? 'anthropic'
        : path.startsWith('/v1/chat/completions')
          ? 'openai-compatible'
          : path.includes(':generateContent')
            ? 'gemini'
            : null;
      const key = String(
        request.headers['x-api-key'] ??
          request.headers['x-goog-api-key'] ??
          request.headers.authorization ??
          '',
      );
      if (request.method !== 'POST' || kind === null || key === '') {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: `No route for ${path}` } }));
        return;
      }
      let body: Json;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
      } catch {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: 'The body is not JSON.' } }));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer(kind, key, body)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    clear() {
      caches.clear();
      served.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function usageOf(kind: UpstreamKind, use: CacheUse, completion: number): ServedUsage {
  return {
    kind,
    promptTokens: use.total,
    cacheReadTokens: use.read,
    cacheWriteTokens: use.write,
    cacheWriteHourTokens: use.writeHour,
    completionTokens: completion,
  };
}
