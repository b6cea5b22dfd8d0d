import { KeyRegistry } from '../keys/key-registry';
import { createLogger } from '../logger';
import { openSqliteStore } from '../store/sqlite-store';
import type { GatewayStore, GenerationRow, KeyRow } from '../store/store';
import { eventually } from '../testing-support';
import { Ledger } from './ledger';
import { startSettlementLoop, type SettlementLoop } from './settlement';

const digest = (key: string) => `v1$${key}`;

const keyRow = (id: string, overrides: Partial<KeyRow> = {}): KeyRow => ({
  id,
  kind: 'account',
  parentId: null,
  name: id,
  digest: digest(id),
  masked: 'sk-…',
  limitNanos: 10_000_000,
  graceNanos: 0,
  consumptionNanos: 0,
  expiresAt: null,
  disabled: false,
  revokedAt: null,
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

describe('the settlement loop', () => {
  let store: GatewayStore;
  let registry: KeyRegistry;
  let ledger: Ledger;
  let loop: SettlementLoop | undefined;

  beforeEach(() => {
    store = openSqliteStore(':memory:');
    store.insertKey(keyRow('key_a'));
    store.insertKey(keyRow('key_b', { consumptionNanos: 1_000 }));
    store.insertKey(keyRow('key_c', { kind: 'shared_child', parentId: 'key_a', limitNanos: 0 }));
    registry = new KeyRegistry(store, digest);
  });
  afterEach(() => {
    loop?.stop();
    loop = undefined;
    store.close();
  });

  function charge(keyId: string, fundingKeyId: string, nanos: number): string {
    const row = generation(keyId, fundingKeyId, nanos);
    store.insertGeneration(row);
    ledger.addPending(fundingKeyId, nanos);
    return row.id;
  }

  it('moves pending charges into the funding key consumption, in the store, the registry and the ledger', () => {
    ledger = new Ledger(store.pendingByFundingKey());
    const first = charge('key_a', 'key_a', 3_000);
    charge('key_c', 'key_a', 4_500); // a shared child's charge lands on its parent
    charge('key_b', 'key_b', 7);
    expect(ledger.pendingFor('key_a')).toBe(7_500);

    loop = startSettlementLoop({
      store,
      registry,
      ledger,
      intervalMs: 60_000,
      logger: createLogger('silent'),
      now: () => 1234,
    });
    const moved = loop.settleNow();
    expect(moved).toEqual(
      new Map([
        ['key_a', 7_500],
        ['key_b', 7],
      ]),
    );
    expect(store.getKey('key_a')!.consumptionNanos).toBe(7_500);
    expect(store.getKey('key_b')!.consumptionNanos).toBe(1_007);
    expect(store.getKey('key_c')!.consumptionNanos).toBe(0);
    expect(registry.get('key_a')!.consumptionNanos).toBe(7_500);
    expect(registry.get('key_b')!.consumptionNanos).toBe(1_007);
    expect(ledger.pendingFor('key_a')).toBe(0);
    expect(ledger.pendingFor('key_b')).toBe(0);
    expect(store.getGeneration(first)).toMatchObject({ settled: true, settledAt: 1234 });

    // Nothing is settled twice.
    expect(loop.settleNow().size).toBe(0);
    expect(store.getKey('key_a')!.consumptionNanos).toBe(7_500);
  });

  it('rebuilds the pending amounts from the store at start-up', () => {
    ledger = new Ledger(new Map());
    charge('key_a', 'key_a', 11);
    charge('key_c', 'key_a', 22);
    expect(new Ledger(store.pendingByFundingKey()).pendingFor('key_a')).toBe(33);
  });

  it('settles on its own timer', async () => {
    ledger = new Ledger(new Map());
    const id = charge('key_b', 'key_b', 500);
    loop = startSettlementLoop({
      store,
      registry,
      ledger,
      intervalMs: 100,
      logger: createLogger('silent'),
    });
    await eventually(() => (store.getGeneration(id)!.settled ? true : undefined));
    expect(registry.get('key_b')!.consumptionNanos).toBe(1_500);
    expect(ledger.pendingFor('key_b')).toBe(0);
  });

  it('stops when asked', async () => {
    ledger = new Ledger(new Map());
    loop = startSettlementLoop({
      store,
      registry,
      ledger,
      intervalMs: 100,
      logger: createLogger('silent'),
    });
    loop.stop();
    const id = charge('key_b', 'key_b', 500);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(store.getGeneration(id)!.settled).toBe(false);
  });
});
