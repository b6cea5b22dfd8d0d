/**
 * One tenant must not stall the others. A key that cannot spend is refused before its body is
 * read (so a 20 MiB body costs nothing to refuse), token counting is bounded like inference, the
 * concurrency and large-body bounds hold per account (child keys buy no more), and a client that
 * stops reading a stream holds back only its own stream: the provider is not pulled further than
 * the socket's buffers allow.
 */
import http from 'node:http';
import type { CanonicalEvent } from '../canonical/model';
import type { Provider } from '../providers/provider';
import {
  bearer,
  chatBody,
  getWithKey,
  postJson,
  startTestGateway,
  type TestGateway,
} from '../../testing/gateway-support';

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

/** Sends a whole body, as a client that writes everything before it reads; resolves on the answer. */
function sendWhole(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    let answered = false;
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': body.length, ...headers },
      },
      (response) => {
        answered = true;
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, body: text });
          // The rest of the body is not worth sending once the answer is in.
          request.destroy();
        });
      },
    );
    request.on('error', (error) => (answered ? undefined : reject(error)));
    request.end(body);
  });
}

/**
 * The answer, or status 0 when none comes within a few seconds: a request the gateway let in
 * (instead of refusing it at once) waits for the rest of its body forever.
 */
function refusedOrNot(
  answer: Promise<{ status: number; sentBytes: number; body: string }>,
): Promise<{ status: number; sentBytes: number; body: string }> {
  const none = { status: 0, sentBytes: 0, body: 'no answer: the request was let in' };
  return Promise.race([
    answer,
    new Promise<typeof none>((resolve) => setTimeout(() => resolve(none), 5_000).unref()),
  ]);
}

/** Waits until `done` holds, checking every few milliseconds (a state, not a duration). */
async function until(done: () => boolean): Promise<void> {
  for (let tries = 0; tries < 1_000 && !done(); tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(done()).toBe(true);
}

const countRoutes: Array<[string, string, (key: string) => Record<string, string>]> = [
  ['messages count_tokens', '/v1/messages/count_tokens', (key) => ({ 'x-api-key': key })],
  [
    'gemini countTokens',
    '/v1beta/models/sim/chat-standard:countTokens',
    (key) => ({ 'x-goog-api-key': key }),
  ],
];

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

  /** Each state that stops a key, made on a fresh key, and a word its 402 message holds. */
  const states: Array<[string, () => Promise<string>, string]> = [
    [
      'an expired key',
      async () => (await gateway.createKey({ kind: 'account', limitUsd: 1, expiresAt: 1_000 })).key,
      'expired',
    ],
    [
      'an allocated child whose parent is disabled',
      async () => {
        const parent = await gateway.createKey({ kind: 'account', limitUsd: 1 });
        const child = await gateway.createKey({
          kind: 'allocated_child',
          parentId: parent.id,
          limitUsd: 1,
        });
        await gateway.gateway.admin.setDisabled(parent.id, true);
        await gateway.refreshKeys();
        return child.key;
      },
      'parent key',
    ],
    [
      'a shared child whose parent is depleted',
      async () => {
        const parent = await gateway.createKey({ kind: 'account', limitUsd: 0 });
        return (await gateway.createKey({ kind: 'shared_child', parentId: parent.id })).key;
      },
      'used up',
    ],
  ];

  describe.each(countRoutes)('on %s', (_route, path, headers) => {
    it.each(states)('%s gets its 402 before its body is read', async (_state, makeKey, says) => {
      const key = await makeKey();
      // Within the counting routes' body limit: only the key's state can refuse it early.
      const answer = await refusedOrNot(
        answerBeforeBody(`${gateway.url}${path}`, headers(key), 512 * 1024),
      );
      expect(answer.status).toBe(402);
      expect(answer.body).toContain(says);
      // Only the head of the body was ever sent: the refusal did not wait for the rest.
      expect(answer.sentBytes).toBeLessThan(1024);
      expect(answer.body).not.toContain(key);
    });
  });

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

describe('child keys of one account', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    // Two requests per key: an account, all its keys together, may then run eight.
    gateway = await startTestGateway({ maxBodyBytes: 20 * 1024 * 1024, maxConcurrentPerKey: 2 });
  });
  afterAll(() => gateway.stop());

  /** Requests the gateway holds for one key (its slots are taken before its body is read). */
  const running = (keyId: string) => gateway.gateway.parts.slots.runningFor(keyId);
  const childrenOf = async (accountId: string, count: number) =>
    Promise.all(
      Array.from({ length: count }, () =>
        gateway.createKey({ kind: 'shared_child', parentId: accountId }),
      ),
    );

  it("share their account's two large-body slots, while another account is served", async () => {
    const account = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const other = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const children = await childrenOf(account.id, 4);
    const chat = `${gateway.url}/v1/chat/completions`;
    const large = 4 * 1024 * 1024;
    // Two children's large bodies that never finish arriving hold the account's two slots.
    const holders = children.slice(0, 2);
    void holders.map((child) => answerBeforeBody(chat, bearer(child.key), large));
    // A request takes its large-body slot in the same step as its key's slot.
    await until(() => holders.every((child) => running(child.id) === 1));
    // Every other child, and the account key itself, is refused its large body at once.
    for (const key of [children[2]!.key, children[3]!.key, account.key]) {
      const refused = await refusedOrNot(answerBeforeBody(chat, bearer(key), large));
      expect(refused.status).toBe(429);
      expect(refused.body).toContain("This key's account");
      expect(refused.sentBytes).toBeLessThan(1024);
    }
    // A child's small request still runs: only large bodies are held back.
    expect((await postJson(chat, chatBody(), { key: children[2]!.key })).status).toBe(200);
    // Another account is served, for inference, counting and its balance.
    expect((await postJson(chat, chatBody(), { key: other.key })).status).toBe(200);
    const counted = await postJson(
      `${gateway.url}/v1/messages/count_tokens`,
      { model: 'sim/chat-standard', messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'x-api-key': other.key } },
    );
    expect(counted.status).toBe(200);
    expect((await getWithKey(`${gateway.url}/v1/balance`, other.key)).status).toBe(200);
  });

  it("share their account's running requests: four times one key's limit", async () => {
    const account = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const other = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const children = await childrenOf(account.id, 5);
    const count = `${gateway.url}/v1/messages/count_tokens`;
    // Four children hold two counting requests each (bodies that never finish): eight in all.
    const holders = children.slice(0, 4);
    for (const child of holders) {
      void [0, 1].map(() => answerBeforeBody(count, { 'x-api-key': child.key }, 60_000));
    }
    await until(() => holders.every((child) => running(child.id) === 2));
    // The fifth child has none running of its own, yet its account is full.
    const fifth = await refusedOrNot(
      answerBeforeBody(count, { 'x-api-key': children[4]!.key }, 60_000),
    );
    expect(fifth.status).toBe(429);
    expect(fifth.body).toContain('requests running, the most this gateway allows one account');
    const fromAccount = await postJson(`${gateway.url}/v1/chat/completions`, chatBody(), {
      key: account.key,
    });
    expect(fromAccount.status).toBe(429);
    // Another account is served at once.
    const chat = await postJson(`${gateway.url}/v1/chat/completions`, chatBody(), {
      key: other.key,
    });
    expect(chat.status).toBe(200);
  });
});

describe('a disabled key flooding large bodies', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ maxBodyBytes: 20 * 1024 * 1024 });
  });
  afterAll(() => gateway.stop());

  it("is refused every time, while a healthy key's requests are all answered", async () => {
    const disabled = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    await gateway.gateway.admin.setDisabled(disabled.id, true);
    await gateway.refreshKeys();
    const healthy = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const head = '{"model":"sim/chat-standard","messages":[{"role":"user","content":"';
    const tail = '"}]}';
    const size = 16 * 1024 * 1024;
    const body = Buffer.concat([
      Buffer.from(head),
      Buffer.alloc(size - head.length - tail.length, 'word '),
      Buffer.from(tail),
    ]);
    const floodRoutes: Array<[string, Record<string, string>]> = [
      ['/v1/chat/completions', bearer(disabled.key)],
      ['/v1/messages', { 'x-api-key': disabled.key }],
      ['/v1/messages/count_tokens', { 'x-api-key': disabled.key }],
      ['/v1beta/models/sim/chat-standard:countTokens', { 'x-goog-api-key': disabled.key }],
    ];
    // Three whole 16 MiB bodies on each route at once, as the attack sent them.
    const flood = Promise.all(
      floodRoutes.flatMap(([path, headers]) =>
        [0, 1, 2].map(() => sendWhole(`${gateway.url}${path}`, headers, body)),
      ),
    );
    const count = { model: 'sim/chat-standard', messages: [{ role: 'user', content: 'hi' }] };
    const answered = Promise.all([
      ...[0, 1, 2, 3].map(() =>
        postJson(`${gateway.url}/v1/chat/completions`, chatBody(), { key: healthy.key }),
      ),
      ...[0, 1].map(() =>
        postJson(`${gateway.url}/v1/messages/count_tokens`, count, {
          headers: { 'x-api-key': healthy.key },
        }),
      ),
      getWithKey(`${gateway.url}/v1/models`, healthy.key),
      getWithKey(`${gateway.url}/v1/balance`, healthy.key),
    ]);
    const [refusals, answers] = await Promise.all([flood, answered]);
    expect(refusals.map((answer) => answer.status)).toEqual(refusals.map(() => 402));
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
  });
});
