/**
 * The benchmark's upstream: an OpenAI-compatible chat-completions server in a process of its own,
 * as fast as plain Node `http` allows, so every target is measured through the same hop and what
 * a gateway adds is its own cost. Every answer is the same: 16 completion tokens with usage, or
 * (with `"stream": true`) a stream of `--chunks` content chunks, the first at once and the next
 * every `--interval-ms`, then the finish chunk, the usage chunk when the request asks for it
 * (`stream_options.include_usage`, as OpenAI does) and `data: [DONE]`. `POST …/embeddings`
 * answers one 256-dimension vector per input, with usage, as OpenAI's embeddings do.
 *
 * Usage: tsx bench/mock-upstream.ts [--port N] [--chunks N] [--interval-ms N]
 * Prints `{"port": N}` on standard output once it listens on 127.0.0.1.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    chunks: { type: 'string', default: '16' },
    'interval-ms': { type: 'string', default: '20' },
  },
});
const chunkCount = Number(values.chunks);
const intervalMs = Number(values['interval-ms']);
if (!Number.isInteger(chunkCount) || chunkCount < 1)
  throw new Error('--chunks: expected a whole number ≥ 1');
if (!Number.isFinite(intervalMs) || intervalMs < 0)
  throw new Error('--interval-ms: expected a number ≥ 0');

/** The 16 completion tokens of every answer, one per stream chunk. */
const TOKENS = [
  'The',
  ' quick',
  ' brown',
  ' fox',
  ' jumps',
  ' over',
  ' the',
  ' lazy',
  ' dog',
  ' while',
  ' the',
  ' cat',
  ' sleeps',
  ' in',
  ' the',
  ' sun',
];
const PROMPT_TOKENS = 8;
const usage = (completion: number) => ({
  prompt_tokens: PROMPT_TOKENS,
  completion_tokens: completion,
  total_tokens: PROMPT_TOKENS + completion,
});
const id = 'chatcmpl-bench';
const model = 'mock-16';

const completionBody = Buffer.from(
  JSON.stringify({
    id,
    object: 'chat.completion',
    created: 0,
    model,
    choices: [
      { index: 0, message: { role: 'assistant', content: TOKENS.join('') }, finish_reason: 'stop' },
    ],
    usage: usage(TOKENS.length),
  }),
);

const event = (data: unknown) => Buffer.from(`data: ${JSON.stringify(data)}\n\n`);
const chunk = (delta: Record<string, string>, finishReason: string | null) =>
  event({
    id,
    object: 'chat.completion.chunk',
    created: 0,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
// Built once: the mock does no work per chunk beyond writing it.
const contentChunks = Array.from({ length: chunkCount }, (_, index) =>
  chunk(
    index === 0
      ? { role: 'assistant', content: TOKENS[0]! }
      : { content: TOKENS[index % TOKENS.length]! },
    null,
  ),
);
const finishChunk = chunk({}, 'stop');
const usageChunk = event({
  id,
  object: 'chat.completion.chunk',
  created: 0,
  model,
  choices: [],
  usage: usage(chunkCount),
});
const done = Buffer.from('data: [DONE]\n\n');

function stream(response: http.ServerResponse, includeUsage: boolean): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
  });
  const started = performance.now();
  let sent = 0;
  let timer: NodeJS.Timeout | undefined;
  response.on('close', () => clearTimeout(timer));
  const next = () => {
    if (response.destroyed) return;
    response.write(contentChunks[sent]!);
    sent += 1;
    if (sent < chunkCount) {
      // Scheduled from the start, so one late timer does not push every later chunk back.
      timer = setTimeout(next, Math.max(0, started + sent * intervalMs - performance.now()));
      return;
    }
    response.write(finishChunk);
    if (includeUsage) response.write(usageChunk);
    response.end(done);
  };
  next();
}

/** One vector, serialised once: every input gets the same one. */
const EMBEDDING_JSON = JSON.stringify(
  Array.from({ length: 256 }, (_, index) => Math.round(Math.sin(index) * 1e6) / 1e6),
);

function embeddings(response: http.ServerResponse, inputs: number): void {
  const data = Array.from(
    { length: inputs },
    (_, index) => `{"object":"embedding","index":${index},"embedding":${EMBEDDING_JSON}}`,
  );
  const body = Buffer.from(
    `{"object":"list","data":[${data.join(',')}],"model":"embed-mock",` +
      `"usage":{"prompt_tokens":${inputs * PROMPT_TOKENS},"total_tokens":${inputs * PROMPT_TOKENS}}}`,
  );
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  response.end(body);
}

function notFound(response: http.ServerResponse): void {
  response.writeHead(404, { 'content-type': 'application/json' });
  response.end('{"error":{"message":"not found","type":"invalid_request_error"}}');
}

const server = http.createServer((request, response) => {
  const embedding = request.url?.endsWith('/embeddings') === true;
  if (request.method !== 'POST' || (!request.url?.endsWith('/chat/completions') && !embedding)) {
    request.resume();
    return notFound(response);
  }
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', () => {
    let body: {
      stream?: unknown;
      stream_options?: { include_usage?: unknown };
      input?: unknown;
    } = {};
    try {
      body = JSON.parse(Buffer.concat(parts).toString('utf8')) as typeof body;
    } catch {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end('{"error":{"message":"body is not JSON","type":"invalid_request_error"}}');
      return;
    }
    if (embedding) return embeddings(response, Array.isArray(body.input) ? body.input.length : 1);
    if (body.stream === true) return stream(response, body.stream_options?.include_usage === true);
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': completionBody.length,
    });
    response.end(completionBody);
  });
});
// Longer than any client's idle keep-alive, so connections are reused, never raced.
server.keepAliveTimeout = 60_000;
server.listen(Number(values.port), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
