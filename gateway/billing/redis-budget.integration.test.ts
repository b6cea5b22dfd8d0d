import type { Redis } from 'ioredis';
import { keyRowFixture, worstcaseFixture } from '../../testing/upstreams/key-rows';
import { GatewayError } from '../errors';
import {
  deleteKeys,
  redisAvailable,
  testRedisClient,
  testRedisPrefix,
} from '../../testing/upstreams/shared-services';
import { openSqliteStore } from '../store/sqlite-store';
import type {
  FundingFigures,
  GatewayStore,
  GenerationRow,
  InflightRow,
  KeyRow,
} from '../store/store';
import { pendingCharge, type Worstcase } from './budget';
import type { InflightRows } from './inflight-rows';
import { RedisBudget } from './redis-budget';

const available = await redisAvailable('billing/redis-budget.integration.test.ts');

const keyRow = (overrides: Partial<KeyRow> = {}) =>
  keyRowFixture({ id: 'key_funding', name: 'funding', graceNanos: 100_000, ...overrides });

const worst = worstcaseFixture;

let sequence = 0;
const inflightRow = (overrides: Partial<InflightRow> = {}): InflightRow => ({
  id: `req_${(sequence += 1)}`,
  keyId: 'key_funding',
  fundingKeyId: 'key_funding',
  model: 'sim/chat-standard',
  provider: 'sim',
  upstreamModel: 'chat-standard',
  form: 'openai',
  streamed: false,
  promptTokens: 0,
  completionTokens: 0,
  costNanos: 0,
  reservedNanos: 0,
  instanceId: 'instance_test',
  leaseExpiresAt: Date.now() + 30_000,
  createdAt: Math.floor(Date.now() / 1000),
  ...overrides,
});

const generation = (id: string, costNanos: number): GenerationRow => ({
  id,
  keyId: 'key_funding',
  fundingKeyId: 'key_funding',
  model: 'sim/chat-standard',
  provider: 'sim',
  form: 'openai',
  streamed: false,
  promptTokens: 10,
  completionTokens: 10,
  costNanos,
  finishReason: 'stop',
  outcome: 'completed',
  settled: false,
  createdAt: Math.floor(Date.now() / 1000),
  settledAt: null,
  latencyMs: 1,
  upstreamModel: 'chat-standard',
  attempts: [],
  usageEstimated: false,
  chargeCapped: false,
});

const notBuilt = (error: unknown) => error instanceof Error && /not built/.test(error.message);

/**
 * The SQLite store, with `fundingFigures` computed from its own key row and pending total while
 * the store's version still says "not built" (another change builds it); the real one otherwise.
 */
async function storeForTest(): Promise<GatewayStore> {
  const store = openSqliteStore(':memory:');
  try {
    await store.fundingFigures('key_none');
    return store;
  } catch (error) {
    if (!notBuilt(error)) throw error;
  }
  return {
    ...store,
    fundingFigures: async (id): Promise<FundingFigures | undefined> => {
      const key = await store.getKey(id);
      if (!key) return undefined;
      return {
        limitNanos: key.limitNanos,
        graceNanos: key.graceNanos,
        consumptionNanos: key.consumptionNanos,
        periodBaseNanos: key.periodBaseNanos,
        pendingNanos: await store.pendingFor(id),
        reservedNanos: 0,
      };
    },
  };
}

/** The in-flight rows the budget opens and drops, as a list (the budget's side of InflightRows). */
function recordingRows() {
  const opened: InflightRow[] = [];
  const dropped: string[] = [];
  const rows = {
    open: async (row: InflightRow) => void opened.push(row),
    drop: async (id: string) => void dropped.push(id),
  } as unknown as InflightRows;
  return { rows, opened, dropped };
}

async function refusalOf(action: Promise<unknown>): Promise<GatewayError> {
  try {
    await action;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe.skipIf(!available)('RedisBudget', () => {
  const prefix = testRedisPrefix('redis-budget');
  const clients: Redis[] = [];
  let store: GatewayStore;

  const budgetFor = (
    options: { leaseMs?: number; reseedMs?: number; holdSlackMs?: number } = {},
  ) => {
    const redis = testRedisClient();
    clients.push(redis);
    const recorded = recordingRows();
    const budget = new RedisBudget({
      redis,
      store,
      rows: recorded.rows,
      prefix,
      leaseMs: options.leaseMs ?? 30_000,
      ...(options.reseedMs === undefined ? {} : { reseedMs: options.reseedMs }),
      ...(options.holdSlackMs === undefined ? {} : { holdSlackMs: options.holdSlackMs }),
    });
    return { budget, redis, ...recorded };
  };

  beforeEach(async () => {
    store = await storeForTest();
    if (clients[0]) await deleteKeys(clients[0], prefix);
  });

  afterEach(async () => {
    await store.close();
  });

  afterAll(async () => {
    const cleaner = testRedisClient();
    await deleteKeys(cleaner, prefix);
    expect(await cleaner.keys(`${prefix}*`)).toEqual([]);
    await cleaner.quit();
    await Promise.all(clients.map((client) => client.quit()));
  });

  it('admits exactly up to limit + grace from two instances at once', async () => {
    const funding = keyRow();
    await store.insertKey(funding);
    const first = budgetFor();
    const second = budgetFor();
    // Ceiling 1_100_000 at 10_000 each: 110 of the 200 fit, however they interleave.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 200 }, (_, index) =>
        (index % 2 === 0 ? first : second).budget.reserve(funding, worst(0), inflightRow()),
      ),
    );
    const admitted = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(admitted).toHaveLength(110);
    for (const outcome of refused) expect((outcome.reason as GatewayError).status).toBe(402);
    expect(await first.budget.reservedFor(funding.id)).toBe(1_100_000);
    expect(first.opened.length + second.opened.length).toBe(110);
    expect(first.opened.every((row) => row.reservedNanos === 0)).toBe(true);
  });

  it('never lets the charges of 200 concurrent requests pass limit + grace', async () => {
    const funding = keyRow({ consumptionNanos: 200_000 });
    await store.insertKey(funding);
    const instances = [budgetFor(), budgetFor()];
    const holds: Worstcase = {
      nanos: 20_000,
      promptNanos: 10_000,
      completionTokenNanos: 3_000,
      maxOutputTokens: 3,
    };
    let costs = 0;
    let refusals = 0;
    // Each holds 20_000 and costs 7_000..16_000 (or nothing); they start and end interleaved.
    await Promise.all(
      Array.from({ length: 200 }, async (_, index) => {
        const { budget } = instances[index % 2]!;
        await sleep(index % 13);
        let reservation;
        try {
          reservation = await budget.reserve(funding, holds, inflightRow());
        } catch (error) {
          expect((error as GatewayError).status).toBe(402);
          refusals += 1;
          return;
        }
        await sleep(index % 5);
        if (index % 7 === 0) return budget.release(reservation);
        const cost = 7_000 + (index % 10) * 1_000;
        costs += cost;
        await budget.charged(reservation, pendingCharge(cost));
      }),
    );
    const charged = await instances[0]!.budget.chargedFor(funding.id);
    expect(charged).toBe(200_000 + costs);
    expect(charged).toBeLessThanOrEqual(1_100_000);
    // The ceiling was reached: the bound was tested, not just respected.
    expect(refusals).toBeGreaterThan(0);
    expect(await instances[1]!.budget.reservedFor(funding.id)).toBe(0);
  });

  it("frees the reservations whose lease ended, the slack after their row's", async () => {
    const funding = keyRow();
    await store.insertKey(funding);
    const { budget } = budgetFor({ leaseMs: 1_000, holdSlackMs: 300 });
    // A dead instance's hold: its lease is never renewed.
    await budget.reserve(funding, worst(300), inflightRow({ leaseExpiresAt: Date.now() + 150 }));
    expect(await budget.reservedFor(funding.id)).toBe(910_000);
    await refusalOf(budget.reserve(funding, worst(100), inflightRow()));
    // Its row's lease has ended, but a reclaim may not have counted its charge yet: still held.
    await sleep(250);
    await refusalOf(budget.reserve(funding, worst(100), inflightRow()));
    await sleep(300);
    // Admission itself frees it (no other call has looked at the key since).
    await budget.reserve(funding, worst(100), inflightRow());
    expect(await budget.reservedFor(funding.id)).toBe(310_000);
  });

  it('keeps a renewed reservation past its first lease', async () => {
    const funding = keyRow();
    await store.insertKey(funding);
    const { budget } = budgetFor({ holdSlackMs: 0 });
    const held = await budget.reserve(
      funding,
      worst(100),
      inflightRow({ leaseExpiresAt: Date.now() + 150 }),
    );
    expect(await budget.renew([held], Date.now() + 30_000)).toEqual(new Set());
    await sleep(200);
    expect(await budget.reservedFor(funding.id)).toBe(310_000);
  });

  it('does not renew a hold whose lease ran out, and says so', async () => {
    const funding = keyRow();
    await store.insertKey(funding);
    const { budget } = budgetFor({ holdSlackMs: 0 });
    const lapsed = await budget.reserve(
      funding,
      worst(100),
      inflightRow({ leaseExpiresAt: Date.now() + 100 }),
    );
    const running = await budget.reserve(funding, worst(100), inflightRow());
    await sleep(150);
    // Nobody has freed it yet, but its room may be taken any moment: it stays lapsed.
    expect(await budget.renew([lapsed, running], Date.now() + 30_000)).toEqual(
      new Set([lapsed.id]),
    );
    expect(await budget.reservedFor(funding.id)).toBe(310_000);
  });

  it('drops the row of a released request before freeing its hold, and keeps the hold if it cannot', async () => {
    const funding = keyRow();
    await store.insertKey(funding);
    const failing = {
      open: async () => undefined,
      drop: async () => {
        throw new Error('the store is unreachable');
      },
    } as unknown as InflightRows;
    const redis = testRedisClient();
    clients.push(redis);
    const budget = new RedisBudget({ redis, store, rows: failing, prefix, leaseMs: 30_000 });
    const reservation = await budget.reserve(funding, worst(100), inflightRow());
    await expect(budget.release(reservation)).rejects.toThrow('unreachable');
    // The row may still be closed and charged by a reclaim, which frees the hold then.
    expect(await budget.reservedFor(funding.id)).toBe(310_000);
  });

  it('seeds charged from the store: consumption + pending, again after the keys are gone', async () => {
    const funding = keyRow({ consumptionNanos: 300_000 });
    await store.insertKey(funding);
    await store.insertGenerations([generation('gen_1', 50_000)]);
    const { budget, redis } = budgetFor();
    expect(await budget.chargedFor(funding.id)).toBeNull();
    await budget.reserve(funding, worst(0), inflightRow());
    expect(await budget.chargedFor(funding.id)).toBe(350_000);

    // Redis restarted (it keeps nothing on disk): every key of the prefix is gone.
    await store.insertGenerations([generation('gen_2', 25_000)]);
    expect(await deleteKeys(redis, prefix)).toBeGreaterThan(0);
    await budget.reserve(funding, worst(0), inflightRow());
    expect(await budget.chargedFor(funding.id)).toBe(375_000);
    expect(await budget.reservedFor(funding.id)).toBe(10_000);
  });

  it('rebuilds reserved from the holds when only the budget hash is lost', async () => {
    const funding = keyRow();
    await store.insertKey(funding);
    const { budget, redis } = budgetFor();
    await budget.reserve(funding, worst(100), inflightRow());
    await redis.del(budget.keysOf(funding.id)[0]);
    await budget.reserve(funding, worst(0), inflightRow());
    expect(await budget.reservedFor(funding.id)).toBe(320_000);
  });

  it('refreshes an old seed from the store in the background', async () => {
    const funding = keyRow();
    await store.insertKey(funding);
    const { budget } = budgetFor({ reseedMs: 50 });
    await budget.reserve(funding, worst(0), inflightRow());
    expect(await budget.chargedFor(funding.id)).toBe(0);
    // A record Redis never heard of: its instance died before counting it.
    await store.insertGenerations([generation('gen_lost', 40_000)]);
    await sleep(80);
    await budget.reserve(funding, worst(0), inflightRow());
    await vi.waitFor(async () => expect(await budget.chargedFor(funding.id)).toBe(40_000));
  });

  it('does not subtract twice when a reservation is charged after its lease was freed', async () => {
    const funding = keyRow();
    await store.insertKey(funding);
    const { budget } = budgetFor({ holdSlackMs: 0 });
    const expired = await budget.reserve(
      funding,
      worst(100),
      inflightRow({ leaseExpiresAt: Date.now() + 100 }),
    );
    await budget.reserve(funding, worst(50), inflightRow());
    // Once its lease has run out, the first hold no longer counts.
    await vi.waitFor(async () => expect(await budget.reservedFor(funding.id)).toBe(160_000));
    await budget.charged(expired, pendingCharge(70_000));
    expect(await budget.reservedFor(funding.id)).toBe(160_000);
    expect(await budget.chargedFor(funding.id)).toBe(70_000);
  });

  it('frees on charge and on release, and drops the row of a released request', async () => {
    const funding = keyRow();
    await store.insertKey(funding);
    const { budget, dropped } = budgetFor();
    const charged = await budget.reserve(funding, worst(100), inflightRow());
    const released = await budget.reserve(funding, worst(100), inflightRow());
    expect(await budget.reservedFor(funding.id)).toBe(620_000);
    await budget.charged(charged, pendingCharge(120_000));
    await budget.release(released);
    await budget.release(released);
    expect(await budget.reservedFor(funding.id)).toBe(0);
    expect(await budget.chargedFor(funding.id)).toBe(120_000);
    expect(dropped).toEqual([released.id]);
  });

  it('counts the records of a dead instance and frees their holds', async () => {
    const funding = keyRow();
    await store.insertKey(funding);
    const { budget } = budgetFor();
    const orphan = await budget.reserve(funding, worst(100), inflightRow());
    await budget.reclaimed({
      records: [{ ...generation(orphan.id, 45_000), outcome: 'ended_early' }],
      released: new Map(),
    });
    expect(await budget.reservedFor(funding.id)).toBe(0);
    expect(await budget.chargedFor(funding.id)).toBe(45_000);
  });

  it('counts the difference, up or down, when a reclaimed request ends after all', async () => {
    const funding = keyRow();
    await store.insertKey(funding);
    const { budget } = budgetFor();
    const slow = await budget.reserve(funding, worst(100), inflightRow());
    const slower = await budget.reserve(funding, worst(100), inflightRow());
    await budget.reclaimed({
      records: [
        { ...generation(slow.id, 45_000), outcome: 'ended_early' },
        { ...generation(slower.id, 45_000), outcome: 'ended_early' },
      ],
      released: new Map(),
    });
    expect(await budget.chargedFor(funding.id)).toBe(90_000);
    // Their own records replaced the closures: one cost more than checkpointed, one less.
    await budget.charged(slow, { pendingNanos: 80_000, chargedNanos: 35_000 });
    await budget.charged(slower, { pendingNanos: 40_000, chargedNanos: -5_000 });
    expect(await budget.chargedFor(funding.id)).toBe(120_000);
    expect(await budget.reservedFor(funding.id)).toBe(0);
  });

  it('refuses with the 402 that says what is left', async () => {
    const funding = keyRow({ consumptionNanos: 300_000 });
    await store.insertKey(funding);
    await store.insertGenerations([generation('gen_1', 100_000)]);
    const { budget } = budgetFor();
    // left = 1_100_000 - 400_000 = 700_000; after the prompt 690_000 -> 230 tokens.
    const alone = await refusalOf(budget.reserve(funding, worst(1_000), inflightRow()));
    expect(alone.status).toBe(402);
    expect(alone.type).toBe('insufficient_balance');
    expect(alone.stage).toBe('admission');
    expect(alone.message).toMatch(/can still afford about 230 output tokens/);
    expect(alone.message).not.toMatch(/still running/);

    // 310_000 held by a running request: 390_000 left, 380_000 after the prompt -> 126 tokens.
    await budget.reserve(funding, worst(100), inflightRow());
    const behind = await refusalOf(budget.reserve(funding, worst(1_000), inflightRow()));
    expect(behind.message).toMatch(/can still afford about 126 output tokens/);
    expect(behind.message).toMatch(/including requests still running/);
  });
});
