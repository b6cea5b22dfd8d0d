/**
 * Several gateway processes on one PostgreSQL and one Redis (issue 13): one exact budget across
 * them, key changes reaching all of them within a second, and nothing answered left uncharged
 * when one is killed mid-stream. Real processes, real databases, real HTTP on loopback.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PublicFormName } from '../gateway/canonical/model';
import { callForm, PUBLIC_FORMS } from '../gateway/test-kit/public-forms';
import { startGatewayProcess, type GatewayProcess, type IssuedKey } from './gateway-process';
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
  options: { redis: boolean; tokensPerSecond: number },
): Promise<GatewayProcess[]> {
  const environment: Record<string, string> = {
    GATEWAY_DATABASE_URL: schema.url,
    GATEWAY_KEY_PEPPER: crypto.randomBytes(24).toString('base64url'),
    GATEWAY_LEASE_MS: String(LEASE_MS),
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
  const others = await Promise.all([
    startGatewayProcess({ environment }),
    startGatewayProcess({ environment }),
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
  let instances: GatewayProcess[];
  let account: IssuedKey;
  let allocated: IssuedKey;
  let shared: IssuedKey;

  beforeAll(async () => {
    schema = await createTestSchema(redis ? 'scale_redis' : 'scale_pg');
    instances = await startCluster(schema, { redis, tokensPerSecond: 0 });
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
    await Promise.all((instances ?? []).map((instance) => instance.stop()));
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
    expect(statuses.every((status) => status === 200 || status === 402)).toBe(true);

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

  it('refuses a key disabled through the command line on every instance within a second', async () => {
    const key = await instances[0]!.createKey(['--kind', 'account', '--limit-usd', '1']);
    for (const instance of instances) {
      const response = await answer(instance.baseUrl, key.key);
      expect(response.status).toBe(200);
    }
    const result = await instances[2]!.cli(['keys', 'disable', key.id]);
    expect(result.code).toBe(0);
    await Promise.all(
      instances.map((instance) =>
        eventually(async () => {
          const response = await answer(instance.baseUrl, key.key);
          return response.status === 402 ? true : undefined;
        }, 1_000),
      ),
    );
  });

  // Without Redis each instance counts its own minute (README, "Rate limits").
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
});

describe.skipIf(!available)('an instance killed mid-stream', () => {
  let schema: TestSchema;
  let instances: GatewayProcess[];

  beforeAll(async () => {
    schema = await createTestSchema('scale_kill');
    // Slow streams, so the kill lands in the middle of them.
    instances = await startCluster(schema, { redis: true, tokensPerSecond: 10 });
  }, 120_000);

  afterAll(async () => {
    await Promise.all((instances ?? []).map((instance) => instance.stop()));
    await schema?.drop();
  });

  it('leaves nothing answered uncharged, charges nothing twice, and frees what it held', async () => {
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
    const [survivorA, victim, survivorB] = instances as [
      GatewayProcess,
      GatewayProcess,
      GatewayProcess,
    ];
    // Streams on the victim: read until the kill cuts them; count what arrived.
    const victimStreams = Array.from({ length: 6 }, async () => {
      const response = await callForm(
        'chat_completions',
        victim.baseUrl,
        account.key,
        MODEL,
        bodyFor('chat_completions', 400),
        { stream: true },
      );
      const rayId = response.headers.get('cf-ray')!;
      let received = 0;
      try {
        const reader = response.body!.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          received += value.byteLength;
        }
      } catch {
        // Cut by the kill.
      }
      return { rayId, received };
    });
    // Let the streams run past a checkpoint (once a second), then kill without warning.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await victim.kill('SIGKILL');
    const cut = await Promise.all(victimStreams);
    expect(cut.every((stream) => stream.received > 0)).toBe(true);

    // The others keep serving meanwhile.
    const served = await Promise.all(
      [survivorA, survivorB].map(async (instance) => {
        const response = await answer(instance.baseUrl, account.key, 'messages');
        return { status: response.status, rayId: response.headers.get('cf-ray')! };
      }),
    );
    expect(served.map((answer) => answer.status)).toEqual([200, 200]);
    const large = async () => {
      const response = await answer(survivorA.baseUrl, account.key, 'chat_completions', 400);
      return response.status;
    };
    // Held by the dead instance until its lease ends…
    expect(await large()).toBe(402);
    // …and then freed, without anyone's help.
    await eventually(async () => ((await large()) === 200 ? true : undefined), LEASE_MS + 3_000);

    // Within the lease (plus a reclaim tick), the survivors close the victim's streams as
    // ended_early, charging what was checkpointed.
    const records = await eventually(async () => {
      const rows = await schema.query<{
        id: string;
        outcome: string;
        completion_tokens: number;
        cost_nanos: string;
      }>(`SELECT id, outcome, completion_tokens, cost_nanos FROM generations WHERE id = ANY($1)`, [
        cut.map((stream) => stream.rayId),
      ]);
      return rows.length === cut.length ? rows : undefined;
    }, LEASE_MS + 5_000);
    for (const record of records) {
      expect(record.outcome).toBe('ended_early');
      expect(Number(record.completion_tokens)).toBeGreaterThan(0);
      expect(Number(record.cost_nanos)).toBeGreaterThan(0);
    }
    const inflight = await schema.query('SELECT id FROM inflight');
    expect(inflight).toHaveLength(0);
    // Every answered request has exactly one record (the id is the primary key: a second
    // close of the same request could not be written, and none was attempted twice).
    const answered = await schema.query<{ id: string }>(
      'SELECT id FROM generations WHERE id = ANY($1)',
      [served.map((answer) => answer.rayId)],
    );
    expect(answered).toHaveLength(2);
    // After settlement, the balance is the sum of every record, the reclaimed ones included.
    const money = await eventually(async () => {
      const now = await moneyOf(schema, account.id);
      return now.pending === 0 ? now : undefined;
    }, 10_000);
    expect(money.consumption).toBe(await chargedTo(schema, account.id));
  });
});

describe.skipIf(!available)('serve --workers', () => {
  let schema: TestSchema;
  let gateway: GatewayProcess | undefined;

  afterAll(async () => {
    await gateway?.stop();
    await schema?.drop();
  });

  it('runs N processes on one port over the shared store, and refuses without one', async () => {
    schema = await createTestSchema('scale_workers');
    gateway = await startGatewayProcess({
      environment: {
        GATEWAY_DATABASE_URL: schema.url,
        GATEWAY_KEY_PEPPER: crypto.randomBytes(24).toString('base64url'),
      },
      serveArgs: ['--workers', '2'],
    });
    const { stdout } = await promisify(execFile)('pgrep', ['-P', String(gateway.pid)]);
    expect(stdout.trim().split('\n')).toHaveLength(2);
    const key = await gateway.createKey(['--kind', 'account', '--limit-usd', '1']);
    const statuses = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const response = await answer(gateway!.baseUrl, key.key);
        return response.status;
      }),
    );
    expect(statuses.every((status) => status === 200)).toBe(true);

    // On SQLite each process would admit against its own ledger: refused, with the reason.
    const environment = { ...process.env };
    delete environment.GATEWAY_DATABASE_URL;
    const refused = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'gateway/cli/main.ts', 'serve', '--workers', '2', '--port', '0'],
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
