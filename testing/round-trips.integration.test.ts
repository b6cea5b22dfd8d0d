/**
 * How many round trips to PostgreSQL and to Redis each kind of request waits for, counted on the
 * proxies between the gateway and each server (docs/scale-out.md, "Round trips"). A change that
 * adds one fails here. A round trip is a request/response turn on a connection (a client write
 * after a server reply starts one); it counts when it starts after the request was sent and its
 * reply reached the gateway before the answer's end reached the client. The proxies delay each
 * way, so a turn the answer does not wait for (sent just before its end) ends after it. The
 * gateway's background work makes turns too, which only add: each kind is measured a few times
 * and its fewest counts.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './gateway-support';
import { callForm } from './upstreams/public-forms';
import {
  createTestSchema,
  deleteKeys,
  postgresAvailable,
  redisAvailable,
  testRedisClient,
  testRedisPrefix,
  testRedisUrl,
  type TestSchema,
} from './upstreams/shared-services';
import { performance } from 'node:perf_hooks';
import { startPausableProxy, type PausableProxy, type RoundTrip } from './pausable-proxy';
import { bodyFor, MODEL } from './scale-out-kit';

const available =
  (await postgresAvailable('the round-trip counts')) &&
  (await redisAvailable('the round-trip counts'));

/** The counts docs/scale-out.md gives: [PostgreSQL, Redis] per kind of request. */
const EXPECTED: Record<string, [postgres: number, redis: number]> = {
  'chat completions': [1, 1],
  'chat completions, streamed': [1, 1],
  messages: [1, 1],
  // The stored response (`store`, the default) is written before the answer ends, so that any
  // instance can continue the conversation: a second write.
  responses: [2, 1],
  'responses, not stored': [1, 1],
  embeddings: [1, 1],
  'refused (over budget)': [0, 1],
  // Its requests and tokens per minute are counted one after the other, before the budget
  // (limits/rate-limits.ts): not yet folded into the budget's script.
  'chat completions, a key with rate limits': [1, 3],
};

const ATTEMPTS = 8;
/** Each way: a round trip costs 10 ms, far longer than the answer's last bytes take on loopback. */
const DELAY = { toServerMs: 5, toClientMs: 5 };
const NO_DELAY = { toServerMs: 0, toClientMs: 0 };

let schema: TestSchema;
let postgresProxy: PausableProxy;
let redisProxy: PausableProxy;
let gateway: TestGateway;
let key: string;
let brokeKey: string;
let limitedKey: string;
const prefix = testRedisPrefix('round-trips');

beforeAll(async () => {
  if (!available) return;
  schema = await createTestSchema('round_trips');
  const database = new URL(schema.url);
  const redis = new URL(testRedisUrl);
  postgresProxy = await startPausableProxy({
    host: database.hostname,
    port: Number(database.port),
  });
  redisProxy = await startPausableProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
  database.port = String(postgresProxy.port);
  redis.port = String(redisProxy.port);
  gateway = await startTestGateway({
    databaseUrl: database.toString(),
    redisUrl: redis.toString(),
    redisPrefix: prefix,
    // Background passes as rare as they go, so that fewer of their turns fall in a window.
    settleIntervalMs: 60_000,
    webhooks: {
      allowPrivate: true,
      retryBaseMs: 1_000,
      failureLimit: 20,
      deliveryTimeoutMs: 1_000,
    },
  });
  key = (await gateway.createKey({ kind: 'account', limitUsd: 100 })).key;
  brokeKey = (await gateway.createKey({ kind: 'account', limitUsd: 0.000_000_001 })).key;
  const limited = await gateway.createKey({ kind: 'account', limitUsd: 100 });
  await gateway.gateway.admin.set(limited.id, { rpmLimit: 1_000_000, tpmLimit: 1_000_000_000 });
  limitedKey = limited.key;
  await gateway.refreshKeys();
});

afterAll(async () => {
  await gateway?.stop();
  await Promise.all([postgresProxy?.close(), redisProxy?.close()]);
  await schema?.drop();
  if (available) {
    const redis = testRedisClient();
    await deleteKeys(redis, prefix);
    redis.disconnect();
  }
});

const send: Record<string, () => Promise<Response>> = {
  'chat completions': () =>
    callForm('chat_completions', gateway.url, key, MODEL, bodyFor('chat_completions', 5)),
  'chat completions, streamed': () =>
    callForm('chat_completions', gateway.url, key, MODEL, bodyFor('chat_completions', 5), {
      stream: true,
    }),
  messages: () => callForm('messages', gateway.url, key, MODEL, bodyFor('messages', 5)),
  responses: () =>
    callForm('responses', gateway.url, key, MODEL, {
      input: 'Tell me about gateways.',
      max_output_tokens: 16,
    }),
  'responses, not stored': () =>
    callForm('responses', gateway.url, key, MODEL, {
      input: 'Tell me about gateways.',
      max_output_tokens: 16,
      store: false,
    }),
  embeddings: () =>
    fetch(`${gateway.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'sim/embed-small', input: 'Hello' }),
    }),
  'chat completions, a key with rate limits': () =>
    callForm('chat_completions', gateway.url, limitedKey, MODEL, bodyFor('chat_completions', 5)),
  'refused (over budget)': () =>
    callForm('chat_completions', gateway.url, brokeKey, MODEL, bodyFor('chat_completions', 5)),
};

type Server = 'postgres' | 'redis';

/**
 * The round trips to `server` one request waits for: those that started after it was sent and
 * whose reply reached the gateway before the client read the end of its answer. Only `server`'s
 * proxy delays: a turn to it that the answer does not wait for ends after the answer, even
 * when the answer waits for the other server meanwhile.
 */
async function measure(kind: string, server: Server): Promise<RoundTrip[]> {
  const proxy = server === 'postgres' ? postgresProxy : redisProxy;
  postgresProxy.setDelay(server === 'postgres' ? DELAY : NO_DELAY);
  redisProxy.setDelay(server === 'redis' ? DELAY : NO_DELAY);
  // A turn still open (the last answer's budget call) would take this request's first write in.
  await Promise.all([postgresProxy.idle(), redisProxy.idle()]);
  const stop = proxy.record();
  const sent = performance.now();
  const response = await send[kind]!();
  await response.arrayBuffer();
  const ended = performance.now();
  const trips = stop();
  expect(response.status, kind).toBe(kind.startsWith('refused') ? 402 : 200);
  return trips.filter(
    (trip) => trip.startedAt >= sent && trip.endedAt !== undefined && trip.endedAt <= ended,
  );
}

/** The fewest round trips to `server` over a few requests of `kind`. */
async function fewest(kind: string, server: Server): Promise<RoundTrip[]> {
  let found: RoundTrip[] | undefined;
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const counted = await measure(kind, server);
    if (!found || counted.length < found.length) found = counted;
  }
  return found!;
}

/** What a turn sent, readable: statement names and SQL of PostgreSQL, commands of Redis. */
const describeTrips = (trips: RoundTrip[]) =>
  trips.map((trip) =>
    trip.sent
      .toString('latin1')
      .replace(/[^\x20-\x7e]+/g, ' ')
      .trim()
      .slice(0, 60),
  );

it.skipIf(!available).each(Object.keys(EXPECTED))(
  'counts the round trips a request waits for: %s',
  async (kind) => {
    // The first of a kind warms what is cached (prepared statements, scripts, the seed).
    await measure(kind, 'postgres');
    const postgres = await fewest(kind, 'postgres');
    const redis = await fewest(kind, 'redis');
    expect(
      { postgres: postgres.length, redis: redis.length },
      JSON.stringify({ postgres: describeTrips(postgres), redis: describeTrips(redis) }),
    ).toEqual({ postgres: EXPECTED[kind]![0], redis: EXPECTED[kind]![1] });
  },
);
