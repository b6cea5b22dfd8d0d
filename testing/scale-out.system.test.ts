/**
 * Several gateway processes on one PostgreSQL and one Redis (docs/scale-out.md): one exact budget
 * across them, key changes reaching all of them within a second, and nothing answered left
 * uncharged when one is killed mid-stream. Real processes, real databases, real HTTP on loopback.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import http from 'node:http';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PublicFormName } from '../gateway/canonical/model';
import { callForm, PUBLIC_FORMS } from '../gateway/test-kit/public-forms';
import { startGatewayProcess, type GatewayProcess, type IssuedKey } from './gateway-process';
import { gatewayArgs } from './gateway-bundle';
import { startPausableProxy, type PausableProxy } from './pausable-proxy';
import { renewalIntervalMs } from '../gateway/billing/inflight-rows';
import {
  createTestSchema,
  postgresAvailable,
  redisAvailable,
  testRedisPrefix,
  testRedisUrl,
  type TestSchema,
} from '../gateway/test-kit/shared-services';

const available =
  (await postgresAvailable('the scale-out tests')) && (await redisAvailable('the scale-out tests'));
const MODEL = 'sim/chat-standard';
const LEASE_MS = 3_000;
/**
 * The lease of the three instances under heavy load (300 requests at once on two cores): renewals
 * there can take seconds, and an instance that cannot renew in time stops its own streams.
 */
const LOADED_LEASE_MS = 6_000;
/** A prompt the simulated model answers at length (it asks for a number of words). */
const LONG_ANSWER = 'Write 300 words about gateways.';

/** A minimal request in each form's own shape. */
function bodyFor(form: PublicFormName, maxTokens: number, text = 'Tell me about gateways.') {
  if (form === 'gemini') {
    return {
      contents: [{ role: 'user', parts: [{ text }] }],
      generationConfig: { maxOutputTokens: maxTokens },
    };
  }
  return { messages: [{ role: 'user', content: text }], max_tokens: maxTokens };
}

/** One non-streamed request of `form`, its body read to the end: its status and headers. */
async function answer(
  baseUrl: string,
  key: string,
  form: PublicFormName = 'chat_completions',
  maxTokens = 5,
): Promise<{ status: number; headers: Headers }> {
  const response = await callForm(form, baseUrl, key, MODEL, bodyFor(form, maxTokens));
  await response.arrayBuffer();
  return { status: response.status, headers: response.headers };
}

async function startCluster(
  schema: TestSchema,
  options: {
    redis: boolean;
    leaseMs: number;
    tokensPerSecond: number;
    /** The third instance reaches PostgreSQL through this proxy, and streams at this rate. */
    proxied?: { proxy: PausableProxy; tokensPerSecond: number };
  },
): Promise<GatewayProcess[]> {
  const environment: Record<string, string> = {
    GATEWAY_DATABASE_URL: schema.url,
    GATEWAY_KEY_PEPPER: crypto.randomBytes(24).toString('base64url'),
    GATEWAY_LEASE_MS: String(options.leaseMs),
    GATEWAY_SETTLE_INTERVAL_MS: '300',
    GATEWAY_SIM_TOKENS_PER_SECOND: String(options.tokensPerSecond),
    GATEWAY_MAX_CONCURRENT_PER_KEY: '1000',
  };
  if (options.redis) {
    environment.GATEWAY_REDIS_URL = testRedisUrl;
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
  return [first, ...others];
}

type Money = {
  limit: number;
  grace: number;
  consumption: number;
  pending: number;
  reserved: number;
};

async function moneyOf(schema: TestSchema, id: string): Promise<Money> {
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

async function chargedTo(schema: TestSchema, fundingKeyId: string): Promise<number> {
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

async function readChatStream(response: Response): Promise<ReadStream> {
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

async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!available).each([
  { label: 'PostgreSQL and Redis', redis: true },
  { label: 'PostgreSQL alone', redis: false },
])('three gateway instances on $label', ({ redis }) => {
  let schema: TestSchema;
  let proxy: PausableProxy;
  let instances: GatewayProcess[];
  let account: IssuedKey;
  let allocated: IssuedKey;
  let shared: IssuedKey;

  beforeAll(async () => {
    schema = await createTestSchema(redis ? 'scale_redis' : 'scale_pg');
    const database = new URL(schema.url);
    proxy = await startPausableProxy({ host: database.hostname, port: Number(database.port) });
    // The third instance can be cut off from PostgreSQL (the last test); its streams are slow.
    instances = await startCluster(schema, {
      redis,
      leaseMs: LOADED_LEASE_MS,
      tokensPerSecond: 0,
      proxied: { proxy, tokensPerSecond: 40 },
    });
    const cli = instances[0]!;
    account = await cli.createKey([
      '--kind',
      'account',
      '--limit-usd',
      '0.01',
      '--grace-usd',
      '0.001',
    ]);
    allocated = await cli.createKey([
      '--kind',
      'allocated_child',
      '--parent',
      account.id,
      '--limit-usd',
      '0.005',
    ]);
    shared = await cli.createKey(['--kind', 'shared_child', '--parent', account.id]);
  }, 120_000);

  afterAll(async () => {
    proxy?.resume();
    await Promise.all((instances ?? []).map((instance) => instance.stop()));
    await proxy?.close();
    await schema?.drop();
  });

  it('holds one exact budget over 300 concurrent mixed requests spread over the instances', async () => {
    const keys = [account, allocated, shared];
    const statuses = await Promise.all(
      Array.from({ length: 300 }, async (_, index) => {
        const form = PUBLIC_FORMS[index % 3]!;
        const key = keys[Math.floor(index / 3) % 3]!;
        const instance = instances[index % instances.length]!;
        const response = await callForm(
          form,
          instance.baseUrl,
          key.key,
          MODEL,
          bodyFor(form, 100),
          {
            stream: index % 2 === 0,
          },
        );
        await response.arrayBuffer();
        return response.status;
      }),
    );
    // Some were admitted and some refused for money: the bound was really reached.
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(10);
    expect(statuses.filter((status) => status === 402).length).toBeGreaterThan(10);
    expect(statuses.filter((status) => status !== 200 && status !== 402)).toEqual([]);

    for (const funding of [account, allocated]) {
      const money = await moneyOf(schema, funding.id);
      expect(await chargedTo(schema, funding.id)).toBeLessThanOrEqual(money.limit + money.grace);
    }
    // After settlement the balance is the sum of the records, and nothing stays reserved.
    for (const funding of [account, allocated]) {
      const charged = await chargedTo(schema, funding.id);
      const money = await eventually(async () => {
        const now = await moneyOf(schema, funding.id);
        return now.pending === 0 ? now : undefined;
      }, 10_000);
      expect(money.consumption).toBe(charged);
      expect(money.reserved).toBe(0);
    }
    const balance = await fetch(`${instances[1]!.baseUrl}/v1/balance`, {
      headers: { authorization: `Bearer ${account.key}` },
    });
    const body = (await balance.json()) as { consumption_usd: number };
    expect(Math.round(body.consumption_usd * 1e9)).toBe(await chargedTo(schema, account.id));
  });

  // Key changes travel by PostgreSQL's LISTEN/NOTIFY with or without Redis: once is enough.
  it.skipIf(!redis)(
    'carries every key change made through the command line to all three instances within a second',
    async () => {
      /** Resolves once every instance answers `key` with `status`, failing after one second. */
      const everywhere = (key: string, status: number) =>
        Promise.all(
          instances.map((instance) =>
            eventually(async () => {
              const response = await answer(instance.baseUrl, key);
              return response.status === status ? true : undefined;
            }, 1_000),
          ),
        );
      const run = async (instance: GatewayProcess, args: string[]) => {
        const result = await instance.cli(args);
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        return result.stdout;
      };
      // Created on one: works on all.
      const key = await instances[0]!.createKey(['--kind', 'account', '--limit-usd', '1']);
      await everywhere(key.key, 200);
      // A limit below one request's worst case: refused everywhere; raised again: served.
      await run(instances[1]!, ['keys', 'set', key.id, '--limit-usd', '0.000001']);
      await everywhere(key.key, 402);
      await run(instances[2]!, ['keys', 'set', key.id, '--limit-usd', '1']);
      await everywhere(key.key, 200);
      // Rotated: the old secret is refused everywhere, the new one served.
      const rotated = JSON.parse(
        await run(instances[0]!, ['keys', 'rotate', key.id, '--json']),
      ) as IssuedKey;
      await Promise.all([everywhere(key.key, 401), everywhere(rotated.key, 200)]);
      // Disabled, then revoked.
      await run(instances[2]!, ['keys', 'disable', key.id]);
      await everywhere(rotated.key, 402);
      await run(instances[1]!, ['keys', 'revoke', key.id]);
      await everywhere(rotated.key, 401);
    },
    60_000,
  );

  // Without Redis each instance counts its own minute (docs/keys-and-money.md, "Rate limits").
  it.skipIf(!redis)(
    'shares rate limits: N+1 requests in a minute over three instances give exactly one 429',
    async () => {
      const key = await instances[0]!.createKey(['--kind', 'account', '--limit-usd', '1']);
      const set = await instances[0]!.cli(['keys', 'set', key.id, '--rpm', '5']);
      expect(set.code).toBe(0);
      // The limit reaches every instance with the key change.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const statuses: number[] = [];
      for (let index = 0; index < 6; index += 1) {
        const instance = instances[index % instances.length]!;
        const response = await answer(instance.baseUrl, key.key);
        statuses.push(response.status);
        if (response.status === 429) {
          expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
        } else {
          expect(response.headers.get('x-ratelimit-limit-requests')).toBe('5');
        }
      }
      expect(statuses.filter((status) => status === 429)).toHaveLength(1);
      expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    },
  );

  // Last: it cuts the third instance off from PostgreSQL for a while.
  it('stops the stream of an instance cut off from PostgreSQL before its lease ends, and the key never passes limit + grace', async () => {
    const [other, , cutOff] = instances as [GatewayProcess, GatewayProcess, GatewayProcess];
    // The stream reserves 400 tokens' worst case (about $0.0012) of this $0.002.
    const account = await other.createKey([
      '--kind',
      'account',
      '--limit-usd',
      '0.002',
      '--grace-usd',
      '0',
    ]);
    const response = await callForm(
      'chat_completions',
      cutOff.baseUrl,
      account.key,
      MODEL,
      bodyFor('chat_completions', 400, LONG_ANSWER),
      { stream: true },
    );
    const reading = readChatStream(response);
    const rayId = response.headers.get('cf-ray')!;
    // Past a checkpoint, the instance loses its database (the connections stay open, silent).
    await eventually(async () => {
      const [row] = await schema.query<{ completion_tokens: string }>(
        'SELECT completion_tokens FROM inflight WHERE id = $1',
        [rayId],
      );
      return row && Number(row.completion_tokens) > 0 ? true : undefined;
    }, 5_000);
    const cutAt = Date.now();
    proxy.pause();

    // It stops the stream itself, with the form's error event, before its lease can end (the
    // last renewal got through at most a renewal interval before the cut).
    const stream = await reading;
    expect(stream.errored).toBe(true);
    expect(stream.finished).toBe(false);
    expect(stream.deltaTimes.length).toBeLessThan(400);
    expect(stream.deltaTimes.at(-1)!).toBeLessThan(cutAt + LOADED_LEASE_MS);

    // The other instance closes its row once the lease has ended, charging the checkpoint and
    // giving the reservation back…
    const closure = await eventually(async () => {
      const [row] = await schema.query<{ cost_nanos: string }>(
        'SELECT cost_nanos FROM generations WHERE id = $1 AND closed_by_lease',
        [rayId],
      );
      return row ? Number(row.cost_nanos) : undefined;
    }, LOADED_LEASE_MS + 5_000);
    // …and others spend that room, up to the limit.
    let refused = false;
    for (let attempt = 0; attempt < 12 && !refused; attempt += 1) {
      const { status } = await answer(other.baseUrl, account.key, 'chat_completions', 100);
      expect([200, 402]).toContain(status);
      refused = status === 402;
    }
    expect(refused).toBe(true);

    // The instance gets its database back, and its record of the cut stream arrives: it
    // replaces the closure, charging no more than the closure did.
    proxy.resume();
    const record = await eventually(async () => {
      const [row] = await schema.query<{ cost_nanos: string; outcome: string }>(
        'SELECT cost_nanos, outcome FROM generations WHERE id = $1 AND NOT closed_by_lease',
        [rayId],
      );
      return row;
    }, 15_000);
    expect(record.outcome).toBe('ended_early');
    expect(Number(record.cost_nanos)).toBeLessThanOrEqual(closure);
    const money = await eventually(async () => {
      const now = await moneyOf(schema, account.id);
      return now.pending === 0 && now.reserved === 0 ? now : undefined;
    }, 10_000);
    const charged = await chargedTo(schema, account.id);
    expect(charged).toBeLessThanOrEqual(money.limit + money.grace);
    expect(money.consumption).toBe(charged);
  }, 60_000);
});

describe.skipIf(!available)('an instance killed mid-stream', () => {
  let schema: TestSchema;
  let instances: GatewayProcess[];

  beforeAll(async () => {
    schema = await createTestSchema('scale_kill');
    // Slow streams, so the kill lands in the middle of them.
    instances = await startCluster(schema, { redis: true, leaseMs: LEASE_MS, tokensPerSecond: 10 });
  }, 120_000);

  afterAll(async () => {
    await Promise.all((instances ?? []).map((instance) => instance.stop()));
    await schema?.drop();
  });

  it('keeps serving under load, leaves nothing answered uncharged, charges nothing twice, and frees what it held', async () => {
    // Six streams of up to 400 tokens hold about $0.0072 of this $0.008: while the victim's
    // reservations are held, one more such request does not fit.
    const account = await instances[0]!.createKey([
      '--kind',
      'account',
      '--limit-usd',
      '0.008',
      '--grace-usd',
      '0',
    ]);
    const busy = await instances[0]!.createKey(['--kind', 'account', '--limit-usd', '1']);
    const [survivorA, victim, survivorB] = instances as [
      GatewayProcess,
      GatewayProcess,
      GatewayProcess,
    ];
    // Streams on the victim: read until the kill cuts them, noting every token that arrived.
    const victimStreams = Array.from({ length: 6 }, async () =>
      readChatStream(
        await callForm(
          'chat_completions',
          victim.baseUrl,
          account.key,
          MODEL,
          bodyFor('chat_completions', 400, LONG_ANSWER),
          { stream: true },
        ),
      ),
    );
    // Meanwhile the survivors serve a steady load of every form, streamed and not, from
    // before the kill until the victim's reservations are freed.
    let loading = true;
    const load = Array.from({ length: 6 }, async (_, worker) => {
      const answered: Array<{ status: number; rayId: string }> = [];
      for (let index = 0; loading; index += 1) {
        const form = PUBLIC_FORMS[(worker + index) % 3]!;
        const instance = (worker + index) % 2 === 0 ? survivorA : survivorB;
        const response = await callForm(form, instance.baseUrl, busy.key, MODEL, bodyFor(form, 3), {
          stream: index % 2 === 1,
        });
        await response.arrayBuffer();
        answered.push({ status: response.status, rayId: response.headers.get('cf-ray')! });
      }
      return answered;
    });
    // Let the streams run past a few checkpoints, then kill without warning.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await victim.kill('SIGKILL');
    const cut = await Promise.all(victimStreams);
    expect(cut.every((stream) => stream.deltaTimes.length > 0 && !stream.finished)).toBe(true);

    const large = async () => {
      const response = await answer(survivorA.baseUrl, account.key, 'chat_completions', 400);
      return response.status;
    };
    // Held by the dead instance until its lease ends…
    expect(await large()).toBe(402);
    // …and then freed, without anyone's help.
    await eventually(async () => ((await large()) === 200 ? true : undefined), LEASE_MS + 3_000);
    loading = false;
    const served = (await Promise.all(load)).flat();
    // The survivors kept serving: every request of the load was answered.
    expect(served.length).toBeGreaterThan(30);
    expect(served.filter((answer) => answer.status !== 200)).toEqual([]);

    // Within the lease (plus a reclaim tick), the survivors close the victim's streams as
    // ended_early, charging what was checkpointed.
    const records = await eventually(async () => {
      const rows = await schema.query<{
        id: string;
        outcome: string;
        completion_tokens: string;
        cost_nanos: string;
      }>(`SELECT id, outcome, completion_tokens, cost_nanos FROM generations WHERE id = ANY($1)`, [
        cut.map((stream) => stream.rayId),
      ]);
      return rows.length === cut.length ? rows : undefined;
    }, LEASE_MS + 5_000);
    // What each cut stream is charged is what its client received, less what arrived after the
    // last checkpoint that reached the database: checkpoints go every renewal interval (500 ms
    // with this lease), and the last one's write took well under half a second more, so at 10
    // tokens a second no stream loses more than 10 tokens' charge, and none is charged more than
    // it received.
    const uncharged = Math.ceil((10 * (renewalIntervalMs(LEASE_MS) + 500)) / 1000);
    for (const record of records) {
      const delivered = cut.find((stream) => stream.rayId === record.id)!.deltaTimes.length;
      expect(record.outcome).toBe('ended_early');
      expect(Number(record.cost_nanos)).toBeGreaterThan(0);
      expect(Number(record.completion_tokens)).toBeLessThanOrEqual(delivered);
      expect(Number(record.completion_tokens)).toBeGreaterThanOrEqual(delivered - uncharged);
    }
    const inflight = await schema.query('SELECT id FROM inflight');
    expect(inflight).toHaveLength(0);
    // Every answered request has exactly one record (the id is the primary key: a second
    // close of the same request could not be written, and none was attempted twice).
    const answered = await schema.query<{ id: string }>(
      'SELECT id FROM generations WHERE id = ANY($1)',
      [served.map((answer) => answer.rayId)],
    );
    expect(answered).toHaveLength(served.length);
    // After settlement, each balance is the sum of its records, the reclaimed ones included.
    for (const key of [account, busy]) {
      const money = await eventually(async () => {
        const now = await moneyOf(schema, key.id);
        return now.pending === 0 && now.reserved === 0 ? now : undefined;
      }, 10_000);
      expect(money.consumption).toBe(await chargedTo(schema, key.id));
    }
  }, 60_000);
});

/**
 * One request on a connection of its own (the primary of `--workers` hands each new connection
 * to the next worker, round-robin): its status and body.
 */
function onNewConnection(
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
function chatRequestsCounted(scrape: string): number {
  let total = 0;
  for (const line of scrape.split('\n')) {
    const found = /^gateway_requests_total\{(.*)\} (\S+)$/.exec(line);
    if (found && found[1]!.includes('route="chat_completions"')) total += Number(found[2]);
  }
  return total;
}

describe.skipIf(!available)('serve --workers', () => {
  let schema: TestSchema;
  let gateway: GatewayProcess | undefined;

  afterAll(async () => {
    await gateway?.stop();
    await schema?.drop();
  });

  it('runs N processes on one port over the shared store, with one scrape for all, and refuses without one', async () => {
    schema = await createTestSchema('scale_workers');
    gateway = await startGatewayProcess({
      environment: {
        GATEWAY_DATABASE_URL: schema.url,
        GATEWAY_KEY_PEPPER: crypto.randomBytes(24).toString('base64url'),
      },
      serveArgs: ['--workers', '2'],
    });
    // The workers: children of the primary that run the gateway's bundle.
    const { stdout } = await promisify(execFile)('pgrep', [
      '-P',
      String(gateway.pid),
      '-f',
      'dist/gateway.js',
    ]);
    expect(stdout.trim().split('\n')).toHaveLength(2);
    const key = await gateway.createKey(['--kind', 'account', '--limit-usd', '1']);
    const chat = () =>
      onNewConnection(`${gateway!.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, ...bodyFor('chat_completions', 5) }),
      });
    // Each on a new connection: both workers serve some of them.
    const first = await Promise.all(Array.from({ length: 21 }, chat));
    expect(first.every((answer) => answer.status === 200)).toBe(true);

    // Whichever worker takes a scrape, it shows every worker's requests: the same total each
    // time, and all of them (neither worker served them all alone).
    const scrapeTotal = async () => {
      const scrape = await onNewConnection(`${gateway!.baseUrl}/metrics`);
      expect(scrape.status).toBe(200);
      return chatRequestsCounted(scrape.text);
    };
    // A request is counted once its socket has closed: wait for the last of them.
    await eventually(async () => ((await scrapeTotal()) === 21 ? true : undefined), 5_000);
    const totals = [];
    for (let scrape = 0; scrape < 4; scrape += 1) totals.push(await scrapeTotal());
    expect(totals).toEqual([21, 21, 21, 21]);
    // And it only grows.
    const second = await Promise.all(Array.from({ length: 10 }, chat));
    expect(second.every((answer) => answer.status === 200)).toBe(true);
    await eventually(async () => ((await scrapeTotal()) === 31 ? true : undefined), 5_000);

    // On SQLite each process would admit against its own ledger: refused, with the reason.
    const environment = { ...process.env };
    delete environment.GATEWAY_DATABASE_URL;
    const refused = await promisify(execFile)(
      process.execPath,
      gatewayArgs(['serve', '--workers', '2', '--port', '0']),
      { env: environment, timeout: 30_000 },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code?: number; stderr?: string }) => ({
        code: error.code,
        stderr: error.stderr ?? '',
      }),
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('GATEWAY_DATABASE_URL');
  });
});
