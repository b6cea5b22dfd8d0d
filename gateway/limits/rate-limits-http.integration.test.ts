/**
 * Rate limits over real HTTP on the embedded gateway (counters in memory): the OpenAI-style
 * headers on answers and on the 429, `Retry-After` and `retry_after`, the unused tokens given
 * back once the answer is recorded, and token counting left out of the limits.
 */
import {
  chatBody,
  postJson,
  startTestGateway,
  type TestGateway,
} from '../../testing/gateway-support';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ defaultRpm: 0, defaultTpm: 0 });
});
afterAll(() => gateway?.stop());

/** A key with its own limits, live in the running registry. */
async function limitedKey(rpmLimit: number | null, tpmLimit: number | null) {
  const issued = await gateway.createKey({ kind: 'account', limitUsd: 1 });
  await gateway.gateway.admin.set(issued.id, { rpmLimit, tpmLimit });
  await gateway.refreshKeys();
  return issued.key;
}

const chat = (key: string, overrides: Record<string, unknown> = {}) =>
  postJson(`${gateway.url}/v1/chat/completions`, chatBody(overrides), { key });

const headerValues = (response: Response) =>
  Object.fromEntries(
    [...response.headers.entries()].filter(([name]) => name.startsWith('x-ratelimit-')),
  );

type ChatAnswer = { usage: { prompt_tokens: number; completion_tokens: number } };

it('sends both limits in OpenAI format, gives back unused tokens, and answers 429 past a limit', async () => {
  const key = await limitedKey(2, 1_000);

  // A short answer to a request that allows a long one: most of what it takes comes back.
  const first = await chat(key, { max_tokens: 200 });
  expect(first.status).toBe(200);
  const usage = ((await first.json()) as ChatAnswer).usage;
  // Taken at admission: the prompt plus max_tokens.
  const wanted = usage.prompt_tokens + 200;
  expect(headerValues(first)).toEqual({
    'x-ratelimit-limit-requests': '2',
    'x-ratelimit-remaining-requests': '1',
    'x-ratelimit-reset-requests': expect.stringMatching(/^(1m0s|\d+(\.\d+)?s)$/),
    'x-ratelimit-limit-tokens': '1000',
    'x-ratelimit-remaining-tokens': String(1_000 - wanted),
    'x-ratelimit-reset-tokens': expect.stringMatching(/^(1m0s|\d+(\.\d+)?s)$/),
  });

  // The first request's unused tokens came back once its record was written.
  const used = usage.prompt_tokens + usage.completion_tokens;
  expect(used).toBeLessThan(wanted);
  const second = await chat(key, { max_tokens: 200 });
  expect(second.status).toBe(200);
  expect(second.headers.get('x-ratelimit-remaining-requests')).toBe('0');
  expect(second.headers.get('x-ratelimit-remaining-tokens')).toBe(String(1_000 - used - wanted));

  const third = await chat(key);
  expect(third.status).toBe(429);
  const retryAfter = Number(third.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(await third.json()).toMatchObject({
    type: 'rate_limited',
    stage: 'admission',
    retry_after: retryAfter,
    error: expect.stringMatching(/2 requests per minute/),
  });
  expect(third.headers.get('x-ratelimit-limit-requests')).toBe('2');
  expect(third.headers.get('x-ratelimit-remaining-requests')).toBe('0');
  expect(third.headers.get('x-ratelimit-reset-requests')).toMatch(/s$/);
});

it('refuses past the token limit in every form, with Retry-After', async () => {
  const key = await limitedKey(null, 100);
  // A long answer uses all it took: nothing comes back.
  const long = await chat(key, {
    max_tokens: 64,
    messages: [{ role: 'user', content: 'write 400 words' }],
  });
  expect(long.status).toBe(200);
  expect(((await long.json()) as ChatAnswer).usage.completion_tokens).toBe(64);

  const messages = await postJson(
    `${gateway.url}/v1/messages`,
    {
      model: 'sim/chat-standard',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hello there, gateway.' }],
    },
    { headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' } },
  );
  expect(messages.status).toBe(429);
  expect(Number(messages.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(messages.headers.get('x-ratelimit-limit-tokens')).toBe('100');
  expect(messages.headers.get('x-ratelimit-limit-requests')).toBeNull();
  expect(await messages.json()).toMatchObject({
    type: 'error',
    error: { type: 'rate_limit_error', message: expect.stringMatching(/100 tokens per minute/) },
  });
});

it('puts the headers on a streamed answer too', async () => {
  const key = await limitedKey(5, null);
  const response = await chat(key, { stream: true });
  expect(response.status).toBe(200);
  expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('4');
  expect(response.headers.get('x-ratelimit-limit-tokens')).toBeNull();
  await response.text();
});

it('sends no rate-limit headers for a key without limits', async () => {
  const key = await limitedKey(null, null);
  const response = await chat(key);
  expect(response.status).toBe(200);
  expect(headerValues(response)).toEqual({});
});

it('blocks a key whose own limit is 0, without Retry-After', async () => {
  const key = await limitedKey(0, null);
  const response = await chat(key);
  expect(response.status).toBe(429);
  expect(response.headers.get('retry-after')).toBeNull();
  const body = (await response.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ type: 'rate_limited', stage: 'admission' });
  expect(body).not.toHaveProperty('retry_after');
});

it('does not count token counting against the limits', async () => {
  const key = await limitedKey(1, 100);
  expect((await chat(key)).status).toBe(200);
  for (let index = 0; index < 3; index += 1) {
    const counted = await postJson(
      `${gateway.url}/v1/messages/count_tokens`,
      {
        model: 'sim/chat-standard',
        messages: [{ role: 'user', content: 'Hello there, gateway.' }],
      },
      { headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' } },
    );
    expect(counted.status).toBe(200);
    expect(headerValues(counted)).toEqual({});
  }
});
