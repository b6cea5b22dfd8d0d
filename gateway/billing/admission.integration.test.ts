/**
 * Admission over real HTTP: the worst case is reserved before a request runs, so neither a tiny
 * balance nor fifty requests at once can spend past limit + grace, and a stream the client leaves
 * frees its reservation and is charged only for what it delivered.
 */
import {
  balanceSchema,
  chatCompletionChunkSchema,
  gatewayErrorBodySchema,
  generationRecordSchema,
  type GenerationRecord,
} from '../../contract/gateway';
import {
  chatBody,
  eventually,
  expectCfRay,
  getWithKey,
  postJson,
  readSseData,
  startTestGateway,
  toNanos,
  type TestGateway,
} from '../../testing/gateway-support';

const PROMPT_NANOS = 1_000; // sim/chat-standard, per token
const COMPLETION_NANOS = 3_000;

let gateway: TestGateway;

beforeAll(async () => {
  // Slow streams, so requests overlap and a client can leave mid-answer; settlement by hand.
  gateway = await startTestGateway({ simulatedTokensPerSecond: 20, settleIntervalMs: 600_000 });
});
afterAll(async () => {
  await gateway.stop();
});

const chatUrl = () => `${gateway.url}/v1/chat/completions`;

async function refusal(response: Response) {
  expect(response.status).toBe(402);
  expectCfRay(response);
  const body = gatewayErrorBodySchema.parse(await response.json());
  expect(body.type).toBe('insufficient_balance');
  expect(body.stage).toBe('admission');
  const affordable = /can still afford about (\d+) output tokens/.exec(body.error);
  expect(affordable, body.error).not.toBeNull();
  return Number(affordable![1]);
}

async function generation(key: string, id: string): Promise<GenerationRecord | undefined> {
  const response = await getWithKey(`${gateway.url}/v1/generation?id=${id}`, key);
  if (response.status === 404) return undefined;
  return generationRecordSchema.parse(await response.json());
}

describe('admission', () => {
  it('refuses a request the key cannot afford with 402 saying how many output tokens it can', async () => {
    const { key } = await gateway.createKey({
      kind: 'account',
      limitUsd: 0.0001,
      graceUsd: 0.00002,
    });
    const messages = [{ role: 'user', content: 'Hi' }];
    const affordable = await refusal(
      await postJson(chatUrl(), chatBody({ messages, max_tokens: 1000 }), { key }),
    );
    expect(affordable).toBeGreaterThan(0);
    expect(affordable).toBeLessThan(1000);
    // The number is exact: one token more is refused, that many is admitted.
    expect(
      await refusal(
        await postJson(chatUrl(), chatBody({ messages, max_tokens: affordable + 1 }), { key }),
      ),
    ).toBe(affordable);
    const admitted = await postJson(chatUrl(), chatBody({ messages, max_tokens: affordable }), {
      key,
    });
    expect(admitted.status).toBe(200);
    const usage = ((await admitted.json()) as { usage: { cost: number } }).usage;
    expect(toNanos(usage.cost)).toBeLessThanOrEqual(toNanos(0.0001 + 0.00002));
  });

  it('never lets 50 concurrent requests spend past limit + grace, across a parent and its shared child', async () => {
    const limitUsd = 0.0004;
    const graceUsd = 0.0001;
    const parent = await gateway.createKey({ kind: 'account', limitUsd, graceUsd });
    const shared = await gateway.createKey({ kind: 'shared_child', parentId: parent.id });
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        postJson(chatUrl(), chatBody({ max_tokens: 10, stream: true, seed: index }), {
          key: index % 2 === 0 ? parent.key : shared.key,
        }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.every((status) => status === 200 || status === 402)).toBe(true);
    const refused = responses.filter((response) => response.status === 402);
    const served = responses.filter((response) => response.status === 200);
    expect(refused.length).toBeGreaterThan(0);
    expect(served.length).toBeGreaterThan(0);
    for (const response of refused) await refusal(response);

    let total = 0;
    for (const response of served) {
      const data = await readSseData(response);
      expect(data.at(-1)).toBe('[DONE]');
      const record = await generation(parent.key, response.headers.get('cf-ray')!);
      expect(record?.outcome).toBe('completed');
      total += toNanos(record!.cost_usd);
    }
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(toNanos(limitUsd + graceUsd));

    await gateway.gateway.settlement.settleNow();
    const balance = balanceSchema.parse(
      await (await getWithKey(`${gateway.url}/v1/balance`, parent.key)).json(),
    );
    expect(toNanos(balance.consumption_usd)).toBe(total);
    expect(toNanos(balance.consumption_usd)).toBeLessThanOrEqual(toNanos(limitUsd + graceUsd));
  });

  it('releases the reservation when the client leaves a stream, charging only the tokens delivered', async () => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 0.0065 });
    const body = chatBody({
      messages: [{ role: 'user', content: 'Please write 500 words about gateways' }],
      max_tokens: 2000,
    });

    const abort = new AbortController();
    const streaming = await postJson(
      chatUrl(),
      { ...body, stream: true },
      { key, signal: abort.signal },
    );
    expect(streaming.status).toBe(200);
    const ray = expectCfRay(streaming);
    const reader = streaming.body!.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    let received = 0;
    while (received < 3) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended before the test left it');
      buffered += decoder.decode(value, { stream: true });
      const events = buffered.split('\n\n');
      buffered = events.pop()!;
      for (const event of events) {
        const chunk = chatCompletionChunkSchema.parse(JSON.parse(event.slice('data: '.length)));
        if (chunk.choices[0]?.delta.content) received += 1;
      }
    }

    // While the stream runs, its worst case is held: a second request of the same size is refused.
    const whileRunning = await refusal(await postJson(chatUrl(), body, { key }));
    expect(whileRunning).toBeLessThan(2000);

    abort.abort();
    await reader.cancel().catch(() => undefined);
    const record = await eventually(() => generation(key, ray));
    expect(record.outcome).toBe('ended_early');
    expect(record.streamed).toBe(true);
    expect(record.completion_tokens).toBeGreaterThanOrEqual(received);
    expect(record.completion_tokens).toBeLessThan(400);
    expect(toNanos(record.cost_usd)).toBe(
      record.prompt_tokens * PROMPT_NANOS + record.completion_tokens * COMPLETION_NANOS,
    );

    // Released: what is left now is the limit minus what was delivered, and all of it is admitted.
    const affordable = await refusal(
      await postJson(chatUrl(), { ...body, max_tokens: 4000 }, { key }),
    );
    expect(affordable).toBe(
      Math.floor(
        (toNanos(0.0065) - toNanos(record.cost_usd) - record.prompt_tokens * PROMPT_NANOS) /
          COMPLETION_NANOS,
      ),
    );
    expect(affordable).toBeGreaterThan(2000);
    const whole = await postJson(chatUrl(), { ...body, max_tokens: affordable }, { key });
    expect(whole.status).toBe(200);
    await whole.text();
  });
});

describe('concurrency per key', () => {
  let limited: TestGateway;
  beforeAll(async () => {
    limited = await startTestGateway({ simulatedTokensPerSecond: 20, maxConcurrentPerKey: 2 });
  });
  afterAll(async () => {
    await limited.stop();
  });

  it('answers 429 with Retry-After past the limit, and admits again once a request ends', async () => {
    const { key } = await limited.createKey({ kind: 'account' });
    const url = `${limited.url}/v1/chat/completions`;
    const running = [new AbortController(), new AbortController()];
    const streams = await Promise.all(
      running.map((controller) =>
        postJson(
          url,
          chatBody({
            stream: true,
            max_tokens: 500,
            messages: [{ role: 'user', content: 'write 300 words' }],
          }),
          {
            key,
            signal: controller.signal,
          },
        ),
      ),
    );
    expect(streams.map((response) => response.status)).toEqual([200, 200]);
    const third = await postJson(url, chatBody(), { key });
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('1');
    expect(gatewayErrorBodySchema.parse(await third.json()).type).toBe('rate_limited');

    running[0]!.abort();
    await streams[0]!.body?.cancel().catch(() => undefined);
    const admitted = await eventually(async () => {
      const response = await postJson(url, chatBody(), { key });
      await response.text();
      return response.status === 200 ? response : undefined;
    });
    expect(admitted.status).toBe(200);
    running[1]!.abort();
    await streams[1]!.body?.cancel().catch(() => undefined);
    // Both left streams are recorded as ended early.
    for (const stream of streams) {
      const record = await eventually(async () => {
        const response = await getWithKey(
          `${limited.url}/v1/generation?id=${stream.headers.get('cf-ray')}`,
          key,
        );
        return response.status === 200
          ? generationRecordSchema.parse(await response.json())
          : undefined;
      });
      expect(record.outcome).toBe('ended_early');
    }
  });
});
