import { GatewayError } from '../errors';
import { createLogger } from '../logger';
import { openSqliteStore } from '../store/sqlite-store';
import type { GatewayStore, InflightRow, KeyRow } from '../store/store';
import { InflightRows } from './inflight-rows';
import { keyRowFixture, worstcaseFixture } from '../../testing/upstreams/key-rows';
import { pendingCharge, type Worstcase } from './budget';
import { MemoryBudget } from './memory-budget';
import { generationRow } from '../store/store-contract';

const key = (overrides: Partial<KeyRow> = {}) =>
  keyRowFixture({ graceNanos: 100_000, ...overrides });

const worst = worstcaseFixture;

let sequence = 0;
/** The in-flight row of a new request funded by `funding`. */
const inflight = (funding: KeyRow): InflightRow => ({
  id: `req-${(sequence += 1)}`,
  keyId: funding.id,
  fundingKeyId: funding.id,
  model: 'sim/chat-standard',
  provider: 'simulated',
  upstreamModel: 'sim/chat-standard',
  form: 'chat_completions',
  streamed: false,
  promptTokens: 0,
  completionTokens: 0,
  costNanos: 0,
  reservedNanos: 0,
  instanceId: 'instance-a',
  leaseExpiresAt: Date.now() + 30_000,
  createdAt: Math.floor(Date.now() / 1000),
});

async function refusalOf(action: () => Promise<unknown>): Promise<GatewayError> {
  try {
    await action();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('MemoryBudget', () => {
  let store: GatewayStore;
  let rows: InflightRows;
  const budgetOf = (initialPending: Map<string, number>) => new MemoryBudget(initialPending, rows);
  const reserve = (budget: MemoryBudget, funding: KeyRow, worstcase: Worstcase) =>
    budget.reserve(funding, worstcase, inflight(funding));

  beforeEach(() => {
    store = openSqliteStore(':memory:');
    rows = new InflightRows(store, 'instance-a', 30_000, createLogger('silent'));
  });
  afterEach(async () => {
    await rows.flush();
    await store.close();
  });

  it('reserves up to limit + grace and refuses past it with 402', async () => {
    const budget = budgetOf(new Map());
    const funding = key();
    // Ceiling 1_100_000: 363 tokens fit (10_000 + 363 * 3000 = 1_099_000); 364 would not.
    await reserve(budget, funding, worst(363));
    expect(await budget.reservedFor('key_a')).toBe(1_099_000);
    const error = await refusalOf(() => reserve(budget, funding, worst(1)));
    expect(error.status).toBe(402);
    expect(error.type).toBe('insufficient_balance');
    expect(error.stage).toBe('admission');
    expect(error.message).toMatch(/can still afford about 0 output tokens/);
    expect(error.message).toMatch(/including requests still running/);
    expect(await budget.reservedFor('key_a')).toBe(1_099_000);
    // The synchronous step refuses the same way.
    expect(() => budget.reserveNow(funding, worst(1), inflight(funding))).toThrow(GatewayError);
    expect(budget.reservedNow('key_a')).toBe(1_099_000);
  });

  it('writes the in-flight row of an admitted request with the next checkpoint, and none for a refused one', async () => {
    const budget = budgetOf(new Map());
    const funding = key();
    const admitted = inflight(funding);
    const reservation = await budget.reserve(funding, worst(363), admitted);
    expect(reservation).toMatchObject({
      id: admitted.id,
      fundingKeyId: 'key_a',
      nanos: 1_099_000,
      released: false,
    });
    const refused = inflight(funding);
    await refusalOf(() => budget.reserve(funding, worst(1), refused));
    // Nothing is written at admission: a request that ends before the checkpoint costs no write.
    expect(await store.listInflight()).toEqual([]);
    await rows.checkpointNow();
    expect((await store.listInflight()).map((row) => row.id)).toEqual([admitted.id]);
  });

  it('writes no row for a request released before the checkpoint', async () => {
    const budget = budgetOf(new Map());
    const funding = key();
    const reservation = await reserve(budget, funding, worst(100));
    await budget.release(reservation);
    await rows.checkpointNow();
    expect(await store.listInflight()).toEqual([]);
    expect(await budget.reservedFor('key_a')).toBe(0);
  });

  it('says exactly how many output tokens the key can still afford', async () => {
    const budget = budgetOf(new Map([['key_a', 400_000]]));
    const funding = key({ consumptionNanos: 300_000 });
    // left = 1_100_000 - 300_000 - 400_000 - 10_000 (prompt) = 390_000 -> 130 tokens
    const error = await refusalOf(() => reserve(budget, funding, worst(1000)));
    expect(error.message).toMatch(/can still afford about 130 output tokens/);
    expect(error.message).not.toMatch(/still running/);
    await expect(reserve(budget, funding, worst(131))).rejects.toThrow(GatewayError);
    expect((await reserve(budget, funding, worst(130))).nanos).toBe(400_000);
  });

  it('releases a reservation once, however often release is called', async () => {
    const budget = budgetOf(new Map());
    const funding = key();
    const first = await reserve(budget, funding, worst(100));
    const second = await reserve(budget, funding, worst(100));
    await rows.checkpointNow();
    expect(await budget.reservedFor('key_a')).toBe(620_000);
    await budget.release(first);
    await budget.release(first);
    expect(await budget.reservedFor('key_a')).toBe(310_000);
    // The released request's in-flight row is gone; the running one's stays.
    expect((await store.listInflight()).map((row) => row.id)).toEqual([second.id]);
    await budget.release(second);
    expect(await budget.reservedFor('key_a')).toBe(0);
    expect(await store.listInflight()).toEqual([]);
    // The released room is admitted again.
    await expect(reserve(budget, funding, worst(363))).resolves.toMatchObject({
      nanos: 1_099_000,
    });
  });

  it('counts settled consumption, pending charges and reservations against the bound', async () => {
    const budget = budgetOf(new Map());
    const funding = key({ consumptionNanos: 500_000 });
    // Two requests end with a record: one cost 300_000, the other nothing.
    const costly = await reserve(budget, funding, worst(97)); // 301_000 reserved
    const free = await reserve(budget, funding, worst(1));
    await budget.charged(costly, pendingCharge(300_000));
    await budget.charged(free, pendingCharge(0));
    expect(budget.pendingFor('key_a')).toBe(300_000);
    expect(await budget.reservedFor('key_a')).toBe(0);
    // A charged reservation is freed once: releasing it afterwards changes nothing.
    await budget.release(costly);
    expect(budget.pendingFor('key_a')).toBe(300_000);
    expect(await budget.reservedFor('key_a')).toBe(0);
    await reserve(budget, funding, worst(90)); // 280_000: 1_080_000 of the 1_100_000 ceiling spoken for
    await expect(reserve(budget, funding, worst(4))).rejects.toThrow(GatewayError); // 22_000 > 20_000 left
    await expect(reserve(budget, funding, worst(3))).resolves.toMatchObject({ nanos: 19_000 }); // fits
  });

  it('counts what a record that replaced its reclaimed closure moved on pending, up or down', async () => {
    const budget = budgetOf(new Map());
    const slow = await reserve(budget, key(), worst(10));
    const slower = await reserve(budget, key(), worst(10));
    await budget.reclaimed({
      records: [
        generationRow({ id: slow.id, fundingKeyId: 'key_a', costNanos: 50_000 }),
        generationRow({ id: slower.id, fundingKeyId: 'key_a', costNanos: 50_000 }),
      ],
      released: new Map(),
    });
    expect(budget.pendingFor('key_a')).toBe(100_000);
    await budget.charged(slow, { pendingNanos: 30_000, chargedNanos: 30_000 });
    await budget.charged(slower, { pendingNanos: -20_000, chargedNanos: -20_000 });
    expect(budget.pendingFor('key_a')).toBe(110_000);
    expect(await budget.reservedFor('key_a')).toBe(0);
  });

  it('moves pending amounts out when they settle, per key', async () => {
    const budget = budgetOf(
      new Map([
        ['key_a', 500],
        ['key_b', 700],
      ]),
    );
    await budget.charged(await reserve(budget, key(), worst(1)), pendingCharge(250));
    expect(budget.pendingFor('key_a')).toBe(750);
    budget.settled(new Map([['key_a', 750]]));
    expect(budget.pendingFor('key_a')).toBe(0);
    expect(budget.pendingFor('key_b')).toBe(700);
    budget.settled(new Map([['key_b', 200]]));
    expect(budget.pendingFor('key_b')).toBe(500);
  });

  it('keeps keys apart', async () => {
    const budget = budgetOf(new Map());
    await reserve(budget, key(), worst(363));
    await expect(reserve(budget, key({ id: 'key_b' }), worst(363))).resolves.toMatchObject({
      fundingKeyId: 'key_b',
      nanos: 1_099_000,
    });
  });
});
