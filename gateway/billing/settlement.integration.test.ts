import { keyRowFixture } from '../../testing/upstreams/key-rows';
import { KeyRegistry } from '../keys/key-registry';
import { createLogger } from '../logger';
import { openSqliteStore } from '../store/sqlite-store';
import type { GatewayStore, GenerationRow, InflightRow, KeyRow } from '../store/store';
import { eventually } from '../../testing/gateway-support';
import { InflightRows } from './inflight-rows';
import { pendingCharge } from './budget';
import { MemoryBudget } from './memory-budget';
import { startSettlementLoop, type SettlementLoop } from './settlement';

const digest = (key: string) => `v1$${key}`;

const keyRow = (id: string, overrides: Partial<KeyRow> = {}) =>
  keyRowFixture({
    id,
    name: id,
    digest: digest(id),
    limitNanos: 10_000_000,
    createdAt: 1,
    ...overrides,
  });

let sequence = 0;
const generation = (keyId: string, fundingKeyId: string, costNanos: number): GenerationRow => ({
  id: `gen-${(sequence += 1)}`,
  keyId,
  fundingKeyId,
  model: 'sim/chat-standard',
  provider: 'simulated',
  upstreamModel: 'sim/chat-standard',
  attempts: [],
  usageEstimated: false,
  chargeCapped: false,
  form: 'chat_completions',
  streamed: false,
  promptTokens: 1,
  completionTokens: 1,
  costNanos,
  finishReason: 'stop',
  outcome: 'completed',
  settled: false,
  createdAt: 100,
  settledAt: null,
  latencyMs: 1,
});

/** The in-flight row a generation's request had while it ran. */
const inflightRow = (row: GenerationRow, overrides: Partial<InflightRow> = {}): InflightRow => ({
  id: row.id,
  keyId: row.keyId,
  fundingKeyId: row.fundingKeyId,
  model: row.model,
  provider: row.provider,
  upstreamModel: row.upstreamModel,
  form: row.form,
  streamed: row.streamed,
  promptTokens: 0,
  completionTokens: 0,
  costNanos: 0,
  reservedNanos: 0,
  instanceId: 'instance-a',
  leaseExpiresAt: Date.now() + 30_000,
  createdAt: row.createdAt,
  ...overrides,
});

describe('the settlement loop', () => {
  let store: GatewayStore;
  let registry: KeyRegistry;
  let rows: InflightRows;
  let budget: MemoryBudget;
  let loop: SettlementLoop | undefined;

  beforeEach(async () => {
    store = openSqliteStore(':memory:');
    await store.insertKey(keyRow('key_a'));
    await store.insertKey(keyRow('key_b', { consumptionNanos: 1_000 }));
    await store.insertKey(
      keyRow('key_c', { kind: 'shared_child', parentId: 'key_a', limitNanos: 0 }),
    );
    registry = await KeyRegistry.open(store, digest);
    rows = new InflightRows(store, 'instance-a', 30_000, createLogger('silent'));
  });
  afterEach(async () => {
    loop?.stop();
    loop = undefined;
    await rows.flush();
    await store.close();
  });

  /** One request of `keyId` admitted, answered and recorded at `nanos`, as the pipeline does it. */
  async function charge(keyId: string, fundingKeyId: string, nanos: number): Promise<string> {
    const row = generation(keyId, fundingKeyId, nanos);
    const funding = registry.get(fundingKeyId)!;
    const reservation = await budget.reserve(
      funding,
      { nanos, promptNanos: nanos, completionTokenNanos: 1, maxOutputTokens: 1 },
      inflightRow(row),
    );
    await rows.closing(row.id);
    await store.insertGenerations([row]);
    await budget.charged(reservation, pendingCharge(nanos));
    return row.id;
  }

  it('moves pending charges into the funding key consumption, in the store, the registry and the budget', async () => {
    budget = new MemoryBudget(await store.pendingByFundingKey(), rows);
    const first = await charge('key_a', 'key_a', 3_000);
    await charge('key_c', 'key_a', 4_500); // a shared child's charge lands on its parent
    await charge('key_b', 'key_b', 7);
    expect(budget.pendingFor('key_a')).toBe(7_500);

    loop = startSettlementLoop({
      store,
      registry,
      budget,
      intervalMs: 60_000,
      logger: createLogger('silent'),
      now: () => 1234,
    });
    const moved = await loop.settleNow();
    expect(moved).toEqual(
      new Map([
        ['key_a', 7_500],
        ['key_b', 7],
      ]),
    );
    expect((await store.getKey('key_a'))!.consumptionNanos).toBe(7_500);
    expect((await store.getKey('key_b'))!.consumptionNanos).toBe(1_007);
    expect((await store.getKey('key_c'))!.consumptionNanos).toBe(0);
    expect(registry.get('key_a')!.consumptionNanos).toBe(7_500);
    expect(registry.get('key_b')!.consumptionNanos).toBe(1_007);
    expect(budget.pendingFor('key_a')).toBe(0);
    expect(budget.pendingFor('key_b')).toBe(0);
    expect(await store.getGeneration(first)).toMatchObject({ settled: true, settledAt: 1234 });

    // Nothing is settled twice.
    expect((await loop.settleNow()).size).toBe(0);
    expect((await store.getKey('key_a'))!.consumptionNanos).toBe(7_500);
  });

  it('rebuilds the pending amounts from the store at start-up', async () => {
    budget = new MemoryBudget(new Map(), rows);
    await charge('key_a', 'key_a', 11);
    await charge('key_c', 'key_a', 22);
    expect(new MemoryBudget(await store.pendingByFundingKey(), rows).pendingFor('key_a')).toBe(33);
  });

  it('settles on its own timer', async () => {
    budget = new MemoryBudget(new Map(), rows);
    const id = await charge('key_b', 'key_b', 500);
    loop = startSettlementLoop({
      store,
      registry,
      budget,
      intervalMs: 100,
      logger: createLogger('silent'),
    });
    await eventually(async () => ((await store.getGeneration(id))!.settled ? true : undefined));
    expect(registry.get('key_b')!.consumptionNanos).toBe(1_500);
    expect(budget.pendingFor('key_b')).toBe(0);
  });

  it('stops when asked', async () => {
    budget = new MemoryBudget(new Map(), rows);
    loop = startSettlementLoop({
      store,
      registry,
      budget,
      intervalMs: 100,
      logger: createLogger('silent'),
    });
    loop.stop();
    const id = await charge('key_b', 'key_b', 500);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await store.getGeneration(id))!.settled).toBe(false);
  });

  it('closes the in-flight rows of a dead instance as ended_early records, which then settle', async () => {
    budget = new MemoryBudget(new Map(), rows);
    loop = startSettlementLoop({
      store,
      registry,
      budget,
      intervalMs: 60_000,
      reclaimIntervalMs: 60_000,
      logger: createLogger('silent'),
      now: () => 1234,
    });
    const started = generation('key_c', 'key_a', 0);
    const silent = generation('key_b', 'key_b', 0);
    const running = generation('key_b', 'key_b', 0);
    await store.openInflight([
      // Delivered something before its instance died: charged what was checkpointed.
      inflightRow(started, {
        instanceId: 'dead',
        leaseExpiresAt: Date.now() - 1_000,
        promptTokens: 5,
        completionTokens: 3,
        costNanos: 800,
      }),
      // Delivered nothing: closed without a record.
      inflightRow(silent, { instanceId: 'dead', leaseExpiresAt: Date.now() - 1_000 }),
      // Its lease still runs: left alone.
      inflightRow(running, { instanceId: 'alive', costNanos: 99, completionTokens: 1 }),
    ]);

    expect(await loop.reclaimNow()).toBe(1);
    expect(await store.getGeneration(started.id)).toMatchObject({
      keyId: 'key_c',
      fundingKeyId: 'key_a',
      outcome: 'ended_early',
      promptTokens: 5,
      completionTokens: 3,
      costNanos: 800,
      settled: false,
    });
    expect(await store.getGeneration(silent.id)).toBeUndefined();
    expect((await store.listInflight()).map((row) => row.id)).toEqual([running.id]);
    expect(budget.pendingFor('key_a')).toBe(800);
    // Closed once: a second pass finds nothing.
    expect(await loop.reclaimNow()).toBe(0);
    expect(budget.pendingFor('key_a')).toBe(800);

    expect(await loop.settleNow()).toEqual(new Map([['key_a', 800]]));
    expect(registry.get('key_a')!.consumptionNanos).toBe(800);
    expect(budget.pendingFor('key_a')).toBe(0);
  });
});
