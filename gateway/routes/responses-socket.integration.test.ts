/**
 * The Responses form over WebSocket on loopback, as Codex drives it: the handshake's key, each
 * `response.create` through the same steps as `POST /v1/responses` (the same events, the same
 * record), several responses in turn on one socket, `previous_response_id` with `store: false`,
 * a second response while one runs, errors as `error` frames, and a client leaving mid-answer.
 */
import net from 'node:net';
import WebSocket from 'ws';
import type { CanonicalEvent, CanonicalRequest } from '../canonical/model';
import type { Provider } from '../providers/provider';
import {
  bearer,
  capturingLogger,
  eventually,
  postJson,
  readSseData,
  startTestGateway,
  type TestGateway,
} from '../../testing/gateway-support';

type Frame = {
  type: string;
  status?: number;
  error?: { message: string };
  [field: string]: unknown;
};

/** What the provider was asked, to check what reached it. */
const seen: CanonicalRequest[] = [];
let aborted = 0;

/** Answers "Hello from the socket."; a prompt with "slow" gets one token, then waits for abort. */
const scripted: Provider = {
  id: 'simulated',
  kind: 'simulated',
  async *stream(request, _model, signal) {
    seen.push(request);
    const prompt = JSON.stringify(request.messages);
    if (prompt.includes('slow')) {
      yield { type: 'text-delta', text: 'Hello' } satisfies CanonicalEvent;
      await new Promise<void>((resolve) =>
        signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      aborted++;
      return;
    }
    yield { type: 'text-delta', text: 'Hello from ' } satisfies CanonicalEvent;
    yield { type: 'text-delta', text: 'the socket.' } satisfies CanonicalEvent;
    yield {
      type: 'finish',
      finishReason: 'stop',
      stopSequence: null,
      usage: { promptTokens: 12, completionTokens: 5 },
    } satisfies CanonicalEvent;
  },
};

let gateway: TestGateway;
let key: string;
const log = capturingLogger();

beforeAll(async () => {
  gateway = await startTestGateway({}, { providers: [scripted], logger: log.logger });
  key = (await gateway.createKey({ kind: 'account', limitUsd: 1 })).key;
});
afterAll(() => gateway.stop());

const socketUrl = () => `${gateway.url.replace('http', 'ws')}/v1/responses`;

/** A socket open with `apiKey` as Bearer, its frames queued for `next`. */
async function openSocket(apiKey = key) {
  const socket = new WebSocket(socketUrl(), {
    headers: { ...bearer(apiKey), 'openai-beta': 'responses_websockets=2026-02-06' },
  });
  const frames: Frame[] = [];
  const waiting: Array<() => void> = [];
  socket.on('message', (data) => {
    frames.push(JSON.parse(String(data)) as Frame);
    waiting.splice(0).forEach((wake) => wake());
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let read = 0;
  /** The next frame, in order. */
  const next = async (): Promise<Frame> => {
    while (read >= frames.length) await new Promise<void>((wake) => waiting.push(wake));
    return frames[read++]!;
  };
  /** Frames up to and including the one that ends a response (or an error). */
  const untilEnd = async (): Promise<Frame[]> => {
    const taken: Frame[] = [];
    for (;;) {
      const frame = await next();
      taken.push(frame);
      if (
        ['response.completed', 'response.failed', 'response.incomplete', 'error'].includes(
          frame.type,
        )
      )
        return taken;
    }
  };
  const send = (message: unknown) => socket.send(JSON.stringify(message));
  return { socket, next, untilEnd, send };
}

/** The handshake's refusal: its status and body. */
function refusedUpgrade(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    socket.on('open', () => reject(new Error('the upgrade was accepted')));
    socket.on('error', () => undefined);
  });
}

const createBody = (text: string, extra: Record<string, unknown> = {}) => ({
  type: 'response.create',
  model: 'sim/chat-standard',
  input: [{ role: 'user', content: [{ type: 'input_text', text }] }],
  ...extra,
});

/** The cf-ray of each socket response, from its log line, in order. */
const socketRays = () =>
  log
    .text()
    .split('\n')
    .filter(Boolean)
    .map((text) => JSON.parse(text) as Record<string, unknown>)
    .filter((entry) => entry.msg === 'socket response');

it('sends the same events as the SSE stream, each as one JSON text frame, and records them', async () => {
  const client = await openSocket();
  client.send(createBody('Say hello.'));
  const frames = await client.untilEnd();
  client.socket.close();

  const streamed = await postJson(
    `${gateway.url}/v1/responses`,
    {
      ...createBody('Say hello.'),
      type: undefined,
      stream: true,
    },
    { key },
  );
  const sse = (await readSseData(streamed)).map((data) => JSON.parse(data) as Frame);
  expect(frames.map((frame) => frame.type)).toEqual(sse.map((event) => event.type));
  expect(frames.at(-1)).toMatchObject({
    type: 'response.completed',
    response: { status: 'completed', usage: { input_tokens: 12, output_tokens: 5 } },
  });
  const deltas = frames.filter((frame) => frame.type === 'response.output_text.delta');
  expect(deltas.map((frame) => frame.delta).join('')).toBe('Hello from the socket.');

  const ray = (await eventually(() => socketRays()[0]))!.cfRay as string;
  const record = await eventually(async () => {
    const response = await fetch(`${gateway.url}/v1/generation?id=${ray}`, {
      headers: bearer(key),
    });
    return response.ok
      ? ((await response.json()) as {
          outcome: string;
          completion_tokens: number;
          api_form?: string;
        })
      : undefined;
  });
  expect(record).toMatchObject({ outcome: 'completed', completion_tokens: 5 });
});

it('carries several responses in turn; previous_response_id works with store false on the socket', async () => {
  const client = await openSocket();
  // Codex's warm-up: the prompt only, nothing asked of a model.
  const before = seen.length;
  client.send(createBody('Remember the word teal.', { store: false, generate: false }));
  const warm = await client.untilEnd();
  expect(warm.map((frame) => frame.type)).toEqual(['response.created', 'response.completed']);
  expect(seen.length).toBe(before);
  const warmId = (warm.at(-1)!.response as { id: string }).id;

  client.send(createBody('First question.', { store: false, previous_response_id: warmId }));
  const first = (await client.untilEnd()).at(-1)!;
  expect(first.type).toBe('response.completed');
  const firstId = (first.response as { id: string }).id;

  client.send(createBody('Second question.', { store: false, previous_response_id: firstId }));
  expect((await client.untilEnd()).at(-1)!.type).toBe('response.completed');
  client.socket.close();

  // The provider saw the whole conversation: the warm-up's prompt, the first turn and its answer.
  const conversation = JSON.stringify(seen.at(-1)!.messages);
  for (const text of [
    'Remember the word teal.',
    'First question.',
    'Hello from the socket.',
    'Second question.',
  ])
    expect(conversation).toContain(text);
  // store false: nothing was kept beyond the socket.
  const stored = await fetch(`${gateway.url}/v1/responses/${firstId}`, { headers: bearer(key) });
  expect(stored.status).toBe(404);
});

it('refuses a second response.create while one runs, and keeps the running one going', async () => {
  const client = await openSocket();
  client.send(createBody('Be slow, please.'));
  expect((await client.next()).type).toBe('response.created');
  client.send(createBody('Impatient.'));
  // The refusal arrives among the running response's frames.
  const running: Frame[] = [];
  let refusal = await client.next();
  while (refusal.type !== 'error') {
    running.push(refusal);
    refusal = await client.next();
  }
  expect(refusal).toMatchObject({ status: 409 });
  expect(refusal.error!.message).toContain('already running');
  // The first one goes on: its first token arrives after the refusal if not before.
  while (!running.some((frame) => frame.type === 'response.output_text.delta'))
    running.push(await client.next());
  expect(seen.filter((request) => JSON.stringify(request.messages).includes('Impatient'))).toEqual(
    [],
  );
  client.socket.close();
  await eventually(() => (aborted > 0 ? true : undefined));
});

it('ends the provider call when the client leaves mid-answer and charges what was delivered', async () => {
  const before = aborted;
  const client = await openSocket();
  client.send(createBody('Be slow again.'));
  for (let frame = await client.next(); frame.type !== 'response.output_text.delta';)
    frame = await client.next();
  const raysBefore = socketRays().length;
  client.socket.terminate();
  await eventually(() => (aborted > before ? true : undefined));
  const line = await eventually(() => socketRays()[raysBefore]);
  expect(line).toMatchObject({ clientLeft: true });
  const record = await eventually(async () => {
    const response = await fetch(`${gateway.url}/v1/generation?id=${line!.cfRay as string}`, {
      headers: bearer(key),
    });
    return response.ok
      ? ((await response.json()) as { outcome: string; completion_tokens: number })
      : undefined;
  });
  expect(record).toMatchObject({ outcome: 'ended_early', completion_tokens: 1 });
});

it('answers a bad frame with an error frame and keeps the socket for the next response', async () => {
  const client = await openSocket();
  client.socket.send('not json');
  expect(await client.next()).toMatchObject({ type: 'error', status: 400 });
  client.send({ type: 'response.create', model: 'sim/chat-standard' });
  const missing = await client.next();
  expect(missing).toMatchObject({ type: 'error', status: 400 });
  expect(missing.error!.message).toContain('input');
  client.send(createBody('Hello?', { model: 'sim/no-such-model' }));
  expect(await client.next()).toMatchObject({ type: 'error', status: 404 });
  // Codex's acknowledgement of a response it handled: read, and answered with nothing.
  client.send({ type: 'response.processed', response_id: 'resp_handled' });
  client.send(createBody('Hello again.'));
  const frames = await client.untilEnd();
  expect(frames[0]!.type).toBe('response.created');
  expect(frames.at(-1)!.type).toBe('response.completed');
  client.socket.close();
});

it('refuses the next response once the key is revoked, on a socket opened before', async () => {
  const issued = await gateway.createKey({ kind: 'account', limitUsd: 1 });
  const client = await openSocket(issued.key);
  client.send(createBody('Before.'));
  expect((await client.untilEnd()).at(-1)!.type).toBe('response.completed');
  await gateway.gateway.admin.revoke(issued.id);
  const closed = new Promise<number>((resolve) => client.socket.once('close', resolve));
  client.send(createBody('After.'));
  expect(await client.next()).toMatchObject({ type: 'error', status: 401 });
  // Of no further use: closed as a policy violation.
  expect(await closed).toBe(1008);
});

it('refuses nested frames past the body limit as a 400 frame, not a failure', async () => {
  const client = await openSocket();
  client.socket.send(`{"type":"response.create","input":${'['.repeat(200)}${']'.repeat(200)}}`);
  const refused = await client.next();
  expect(refused).toMatchObject({ type: 'error', status: 400 });
  expect(refused.error!.message).toContain('nested');
  client.socket.close();
});

/** What the gateway answers to a raw request, read until it closes. */
async function rawExchange(request: string): Promise<string> {
  const { port } = new URL(gateway.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  let answer = '';
  socket.on('data', (data) => (answer += data.toString('utf8')));
  socket.write(request);
  await new Promise((resolve) => socket.on('close', resolve));
  return answer;
}

it('answers an upgrade to a target that is no path with a 400, and keeps serving', async () => {
  const answer = await rawExchange(
    'GET http://[ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
      'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
  );
  expect(answer).toMatch(/^HTTP\/1\.1 400 /);
  expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
});

it('serves a request that asks for another protocol (h2c) as plain HTTP', async () => {
  const answer = await rawExchange(
    'GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, HTTP2-Settings\r\n' +
      'Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\nConnection: close\r\n\r\n',
  );
  expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  expect(answer).toContain('sim/chat-standard');
});

it('refuses the upgrade without a valid key, and on any path but /v1/responses', async () => {
  const noKey = await refusedUpgrade(socketUrl(), {});
  expect(noKey.status).toBe(401);
  const wrongKey = await refusedUpgrade(socketUrl(), bearer('sk-gw-not-a-real-key'));
  expect(wrongKey.status).toBe(401);
  const elsewhere = await refusedUpgrade(
    `${gateway.url.replace('http', 'ws')}/v1/chat/completions`,
    bearer(key),
  );
  expect(elsewhere.status).toBe(404);
  expect(elsewhere.body).toContain('GET /v1/responses');
});
