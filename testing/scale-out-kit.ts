/**
 * What the scale-out tests share (docs/scale-out.md): a cluster of gateway processes on one
 * PostgreSQL (and Redis), requests in each form, and the money read back from the database.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { PublicFormName } from '../gateway/canonical/model';
import { callForm } from './upstreams/public-forms';
import { startGatewayProcess, type GatewayProcess } from './gateway-process';
import { startPausableProxy, symmetricDelay, type PausableProxy } from './pausable-proxy';
import {
  postgresAvailable,
  redisAvailable,
  testRedisPrefix,
  testRedisUrl,
  type TestSchema,
} from './upstreams/shared-services';

export { eventually } from './eventually';

export const available =
  (await postgresAvailable('the scale-out tests')) && (await redisAvailable('the scale-out tests'));
export const MODEL = 'sim/chat-standard';
export const LEASE_MS = 3_000;
/**
 * The lease of the three instances under heavy load (300 requests at once on two cores): renewals
 * there can take seconds, and an instance that cannot renew in time stops its own streams.
 */
export const LOADED_LEASE_MS = 6_000;
/** A prompt the simulated model answers at length (it asks for a number of words). */
export const LONG_ANSWER = 'Write 300 words about gateways.';

/**
 * The round trip (ms) between the instances and PostgreSQL and Redis: GATEWAY_TEST_NETWORK_RTT_MS,
 * 0 unless set (docs/tests.md). Above 0, every instance reaches them through proxies that delay
 * each way by half of it, as across machines.
 */
export const NETWORK_RTT_MS = ((value: string | undefined) => {
  const rtt = Number(value ?? '0');
  if (!Number.isFinite(rtt) || rtt < 0) {
    throw new Error(`GATEWAY_TEST_NETWORK_RTT_MS: expected milliseconds ≥ 0, got "${value}"`);
  }
  return rtt;
})(process.env.GATEWAY_TEST_NETWORK_RTT_MS);

/** Each way's share of `NETWORK_RTT_MS`, for a proxy a test starts itself. */
export const networkDelay = symmetricDelay(NETWORK_RTT_MS);

/**
 * `url` (postgres:// or redis://) through a proxy with the network's delay, or as it is when
 * there is none; `close` stops the proxy.
 */
export async function overTheNetwork(
  url: string,
): Promise<{ url: string; close(): Promise<void> }> {
  if (NETWORK_RTT_MS === 0) return { url, close: async () => undefined };
  const target = new URL(url);
  const defaultPort = target.protocol.startsWith('redis') ? 6379 : 5432;
  const proxy = await startPausableProxy(
    { host: target.hostname, port: Number(target.port || defaultPort) },
    { delay: networkDelay },
  );
  target.port = String(proxy.port);
  return { url: target.toString(), close: () => proxy.close() };
}

/** A minimal request in each form's own shape. */
export function bodyFor(form: PublicFormName, maxTokens: number, text = 'Tell me about gateways.') {
  if (form === 'gemini') {
    return {
      contents: [{ role: 'user', parts: [{ text }] }],
      generationConfig: { maxOutputTokens: maxTokens },
    };
  }
  return { messages: [{ role: 'user', content: text }], max_tokens: maxTokens };
}

/** One non-streamed request of `form`, its body read to the end: its status and headers. */
export async function answer(
  baseUrl: string,
  key: string,
  form: PublicFormName = 'chat_completions',
  maxTokens = 5,
): Promise<{ status: number; headers: Headers }> {
  const response = await callForm(form, baseUrl, key, MODEL, bodyFor(form, maxTokens));
  await response.arrayBuffer();
  return { status: response.status, headers: response.headers };
}

export async function startCluster(
  schema: TestSchema,
  options: {
    redis: boolean;
    leaseMs: number;
    tokensPerSecond: number;
    /** The third instance reaches PostgreSQL through this proxy, and streams at this rate. */
    proxied?: { proxy: PausableProxy; tokensPerSecond: number };
  },
): Promise<GatewayProcess[]> {
  // Every instance reaches both servers over the network; closed once every instance stopped.
  const database = await overTheNetwork(schema.url);
  const redis = await overTheNetwork(testRedisUrl);
  const environment: Record<string, string> = {
    GATEWAY_DATABASE_URL: database.url,
    GATEWAY_KEY_PEPPER: crypto.randomBytes(24).toString('base64url'),
    GATEWAY_LEASE_MS: String(options.leaseMs),
    GATEWAY_SETTLE_INTERVAL_MS: '300',
    GATEWAY_SIM_TOKENS_PER_SECOND: String(options.tokensPerSecond),
    GATEWAY_MAX_CONCURRENT_PER_KEY: '1000',
  };
  if (options.redis) {
    environment.GATEWAY_REDIS_URL = redis.url;
    environment.GATEWAY_REDIS_PREFIX = testRedisPrefix('scale');
  }
  // The first starts alone (it migrates the schema); the others start together, as a rolling
  // deploy would, and find the schema current.
  const first = await startGatewayProcess({ environment });
  const throughProxy = new URL(schema.url);
  if (options.proxied) throughProxy.port = String(options.proxied.proxy.port);
  const others = await Promise.all([
    startGatewayProcess({ environment }),
    startGatewayProcess({
      environment: options.proxied
        ? {
            ...environment,
            GATEWAY_DATABASE_URL: throughProxy.toString(),
            GATEWAY_SIM_TOKENS_PER_SECOND: String(options.proxied.tokensPerSecond),
          }
        : environment,
    }),
  ]);
  const instances = [first, ...others];
  let running = instances.length;
  for (const instance of instances) {
    const stop = instance.stop.bind(instance);
    instance.stop = async () => {
      await stop();
      running -= 1;
      if (running === 0) await Promise.all([database.close(), redis.close()]);
    };
  }
  return instances;
}

type Money = {
  limit: number;
  grace: number;
  consumption: number;
  pending: number;
  reserved: number;
};

export async function moneyOf(schema: TestSchema, id: string): Promise<Money> {
  const [row] = await schema.query<Record<string, string>>(
    `SELECT limit_nanos, grace_nanos, consumption_nanos, pending_nanos, reserved_nanos
     FROM keys WHERE id = $1`,
    [id],
  );
  return {
    limit: Number(row!.limit_nanos),
    grace: Number(row!.grace_nanos),
    consumption: Number(row!.consumption_nanos),
    pending: Number(row!.pending_nanos),
    reserved: Number(row!.reserved_nanos),
  };
}

export async function chargedTo(schema: TestSchema, fundingKeyId: string): Promise<number> {
  const [row] = await schema.query<{ total: string }>(
    'SELECT COALESCE(SUM(cost_nanos), 0) AS total FROM generations WHERE funding_key_id = $1',
    [fundingKeyId],
  );
  return Number(row!.total);
}

/**
 * A chat-completions stream read to its end (or its cut): when each content delta arrived (the
 * simulated provider sends one token per delta), and whether it ended with the form's error event.
 */
type ReadStream = { rayId: string; deltaTimes: number[]; errored: boolean; finished: boolean };

export async function readChatStream(response: Response): Promise<ReadStream> {
  const stream: ReadStream = {
    rayId: response.headers.get('cf-ray')!,
    deltaTimes: [],
    errored: false,
    finished: false,
  };
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    const reader = response.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
        const event = JSON.parse(line.slice(6)) as {
          error?: unknown;
          choices?: Array<{ delta?: { content?: string }; finish_reason?: string | null }>;
        };
        if (event.error) stream.errored = true;
        const choice = event.choices?.[0];
        if (choice?.delta?.content) stream.deltaTimes.push(Date.now());
        if (choice?.finish_reason && choice.finish_reason !== 'error') stream.finished = true;
      }
    }
  } catch {
    // Cut without an end (the instance was killed).
  }
  return stream;
}

/**
 * One request on a connection of its own (the primary of `--workers` hands each new connection
 * to the next worker, round-robin): its status and body.
 */
export function onNewConnection(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, agent: false },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** The chat-completions requests a scrape counts (every status). */
export function chatRequestsCounted(scrape: string): number {
  let total = 0;
  for (const line of scrape.split('\n')) {
    const found = /^gateway_requests_total\{(.*)\} (\S+)$/.exec(line);
    if (found && found[1]!.includes('route="chat_completions"')) total += Number(found[2]);
  }
  return total;
}
