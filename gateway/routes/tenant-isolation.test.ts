/**
 * One tenant must not stall the others. A key that cannot spend is refused before its body is
 * read (so a 20 MiB body costs nothing to refuse), token counting is bounded like inference, and
 * a client that stops reading a stream holds back only its own stream: the provider is not
 * pulled further than the socket's buffers allow.
 */
import http from 'node:http';
import type { CanonicalEvent } from '../canonical/model';
import type { Provider } from '../providers/provider';
import { chatBody, postJson, startTestGateway, type TestGateway } from '../testing-support';

/** Sends the head of a large body and waits for the answer without sending the rest. */
function answerBeforeBody(
  url: string,
  headers: Record<string, string>,
  declaredBytes: number,
): Promise<{ status: number; sentBytes: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    let sentBytes = 0;
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': declaredBytes,
          ...headers,
        },
      },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, sentBytes, body });
          request.destroy();
        });
      },
    );
    request.on('error', (error) => (sentBytes > 0 ? undefined : reject(error)));
    const head = '{"model":"sim/chat-standard","messages":[{"role":"user","content":"';
    request.write(head);
    sentBytes += head.length;
  });
}

describe('a key that cannot spend', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ maxBodyBytes: 20 * 1024 * 1024 });
  });
  afterAll(() => gateway.stop());

  const routes: Array<[string, string, (key: string) => Record<string, string>]> = [
    ['chat completions', '/v1/chat/completions', (key) => ({ authorization: `Bearer ${key}` })],
    ['messages', '/v1/messages', (key) => ({ 'x-api-key': key })],
    ['messages count_tokens', '/v1/messages/count_tokens', (key) => ({ 'x-api-key': key })],
    [
      'gemini',
      '/v1beta/models/sim/chat-standard:generateContent',
      (key) => ({ 'x-goog-api-key': key }),
    ],
    [
      'gemini countTokens',
      '/v1beta/models/sim/chat-standard:countTokens',
      (key) => ({ 'x-goog-api-key': key }),
    ],
  ];

  it.each(routes)(
    'gets its 402 on %s before its 20 MiB body is read',
    async (_name, path, headers) => {
      const { id, key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
      await gateway.gateway.admin.setDisabled(id, true);
      await gateway.refreshKeys();
      const answer = await answerBeforeBody(
        `${gateway.url}${path}`,
        headers(key),
        20 * 1024 * 1024 - 1,
      );
      expect(answer.status).toBe(402);
      // Only the head of the body was ever sent: the refusal did not wait for (or parse) the rest.
      expect(answer.sentBytes).toBeLessThan(1024);
      expect(answer.body).not.toContain(key);
    },
  );

  it('gets its 402 on count_tokens when depleted, like every other route', async () => {
    const { id, key } = await gateway.createKey({ kind: 'account', limitUsd: 0 });
    void id;
    const response = await postJson(
      `${gateway.url}/v1/messages/count_tokens`,
      { model: 'sim/chat-standard', messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'x-api-key': key } },
    );
    expect(response.status).toBe(402);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe(
      'billing_error',
    );
  });
});

describe('token counting is bounded', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      maxBodyBytes: 8 * 1024 * 1024,
      maxCountBodyBytes: 64 * 1024,
      maxConcurrentPerKey: 2,
    });
  });
  afterAll(() => gateway.stop());

  it('refuses a count body over its own limit, far below the inference limit', async () => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const big = 'word '.repeat(40_000); // 200 kB
    const response = await postJson(
      `${gateway.url}/v1/messages/count_tokens`,
      { model: 'sim/chat-standard', messages: [{ role: 'user', content: big }] },
      { headers: { 'x-api-key': key } },
    );
    expect(response.status).toBe(413);
  });

  it('takes part in the per-key concurrency limit, while another key is answered', async () => {
    const greedy = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const other = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    // Two count requests hold both of the greedy key's slots: their bodies never finish.
    const held = [0, 1].map(() =>
      answerBeforeBody(
        `${gateway.url}/v1/messages/count_tokens`,
        { 'x-api-key': greedy.key },
        60_000,
      ),
    );
    // Wait until the gateway holds both slots, by asking for a third.
    let third: Response | undefined;
    for (let tries = 0; tries < 100; tries += 1) {
      third = await postJson(
        `${gateway.url}/v1/messages/count_tokens`,
        { model: 'sim/chat-standard', messages: [{ role: 'user', content: 'hi' }] },
        { headers: { 'x-api-key': greedy.key } },
      );
      if (third.status === 429) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(third?.status).toBe(429);
    // Meanwhile another key is served, for counting and for inference.
    const counted = await postJson(
      `${gateway.url}/v1/messages/count_tokens`,
      { model: 'sim/chat-standard', messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'x-api-key': other.key } },
    );
    expect(counted.status).toBe(200);
    const chat = await postJson(`${gateway.url}/v1/chat/completions`, chatBody(), {
      key: other.key,
    });
    expect(chat.status).toBe(200);
    void held;
  });
});

describe('a client that stops reading', () => {
  const TOTAL_EVENTS = 20_000;
  let pulled = 0;
  /** An endless-looking provider: each event is 1 kB, and it counts what the gateway pulls. */
  const counting: Provider = {
    id: 'simulated',
    kind: 'simulated',
    async *stream() {
      for (let index = 0; index < TOTAL_EVENTS; index += 1) {
        pulled += 1;
        yield { type: 'text-delta', text: 'x'.repeat(1024) } satisfies CanonicalEvent;
        // Let the socket's buffers fill and `drain` be missed, as a real upstream would.
        if (index % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      yield {
        type: 'finish',
        finishReason: 'stop',
        stopSequence: null,
        usage: { promptTokens: 1, completionTokens: TOTAL_EVENTS },
      } satisfies CanonicalEvent;
    },
  };
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({}, { providers: [counting] });
  });
  afterAll(() => gateway.stop());

  it('holds back only its own stream: the provider is not drained into memory', async () => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 10 });
    const target = new URL(`${gateway.url}/v1/chat/completions`);
    const body = JSON.stringify(chatBody({ stream: true, max_tokens: 4_000 }));
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const request = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        },
        resolve,
      );
      request.on('error', reject);
      request.end(body);
    });
    response.pause(); // never read
    // Wait until the gateway stops pulling (the socket is full), then check it stopped early.
    let previous = -1;
    for (let tries = 0; tries < 200 && pulled !== previous; tries += 1) {
      previous = pulled;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(pulled).toBeLessThan(TOTAL_EVENTS / 2);
    // Another client is still answered at once.
    const other = await postJson(`${gateway.url}/v1/chat/completions`, chatBody(), { key });
    expect(other.status).toBe(200);
    response.destroy();
  });
});

describe('large bodies from one key', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ maxBodyBytes: 20 * 1024 * 1024 });
  });
  afterAll(() => gateway.stop());

  it('are read at most two at a time per key, while another key is served at once', async () => {
    const greedy = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const other = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const large = 4 * 1024 * 1024;
    // Two large bodies that never finish arriving hold the key's two large-body slots.
    const held = [0, 1].map(() =>
      answerBeforeBody(
        `${gateway.url}/v1/chat/completions`,
        { authorization: `Bearer ${greedy.key}` },
        large,
      ),
    );
    // Let the two held requests take their slots first.
    await new Promise((resolve) => setTimeout(resolve, 200));
    let third: { status: number } | undefined;
    for (let tries = 0; tries < 100; tries += 1) {
      third = await answerBeforeBody(
        `${gateway.url}/v1/chat/completions`,
        { authorization: `Bearer ${greedy.key}` },
        large,
      );
      if (third.status === 429) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(third?.status).toBe(429);
    const chat = await postJson(`${gateway.url}/v1/chat/completions`, chatBody(), {
      key: other.key,
    });
    expect(chat.status).toBe(200);
    void held;
  });
});
