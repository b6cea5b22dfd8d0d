/**
 * What every GatewayStore must do, as one suite run unchanged against each engine
 * (sqlite-store.integration.test.ts, postgres-store.integration.test.ts). Where instances meet (reservations, reclaims,
 * settlement, key changes), a second store over the same data plays the other instance: another
 * connection to the same SQLite file, another pool on the same PostgreSQL schema.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type {
  GatewayStore,
  GenerationRow,
  InflightRow,
  KeyEventRow,
  KeyRow,
  LedgerEntry,
} from './store';
import { noUsage, usageFieldNames } from '../../contract/generation-record';
import { bucketOf, emptyStats, histogramQuantile } from './provider-stats';
import { keyRowFixture } from '../../testing/upstreams/key-rows';

export type StoreFactory = {
  /** A store over new, empty data. */
  open(): Promise<GatewayStore>;
  /** Another store over the data of the last `open()`, with its own connections. */
  openAnother(): Promise<GatewayStore>;
};

/** More than 2^32 nanos, so a value cut to 32 bits, or left as text, shows. */
const USD = 1_000_000_000;

export const keyRow = (overrides: Partial<KeyRow> = {}): KeyRow => {
  const id = overrides.id ?? 'key_account';
  return keyRowFixture({
    id,
    name: id,
    digest: `v1$${id}`,
    masked: 'sk-gw-…abcd',
    limitNanos: 50 * USD,
    createdAt: 1_700_000_000,
    ...overrides,
  });
};

export const generationRow = (overrides: Partial<GenerationRow> = {}): GenerationRow => ({
  id: 'gen_1',
  keyId: 'key_account',
  fundingKeyId: 'key_account',
  model: 'sim/chat-standard',
  provider: 'simulated',
  form: 'chat_completions',
  streamed: false,
  promptTokens: 10,
  completionTokens: 20,
  costNanos: 3 * USD + 1,
  finishReason: 'stop',
  outcome: 'completed',
  settled: false,
  createdAt: 1_700_000_100,
  settledAt: null,
  latencyMs: 12.5,
  upstreamModel: 'chat-standard',
  attempts: [{ provider: 'simulated', status: 200, latencyMs: 12.5 }],
  usageEstimated: false,
  chargeCapped: false,
  ...noUsage,
  translation: null,
  requestedModel: null,
  overheadMs: 0.42,
  sessionId: null,
  batchId: null,
  ...overrides,
});

export const inflightRow = (overrides: Partial<InflightRow> = {}): InflightRow => ({
  id: 'req_1',
  keyId: 'key_account',
  fundingKeyId: 'key_account',
  model: 'sim/chat-standard',
  provider: 'simulated',
  upstreamModel: 'chat-standard',
  form: 'chat_completions',
  streamed: true,
  promptTokens: 0,
  completionTokens: 0,
  costNanos: 0,
  reservedNanos: 0,
  instanceId: 'instance-a',
  leaseExpiresAt: 1_700_000_030_000,
  createdAt: 1_700_000_000,
  ...overrides,
});

const ledgerEntry = (overrides: Partial<LedgerEntry> = {}): LedgerEntry => ({
  keyId: 'key_account',
  entry: 'recharge',
  rechargeNanos: 10 * USD,
  creditNanos: 0,
  allocatedNanos: 0,
  limitNanos: 10 * USD,
  counterpartId: null,
  note: null,
  actor: 'cli',
  createdAt: 1_700_000_000,
  ...overrides,
});

const sum = (values: Iterable<number>) => [...values].reduce((total, value) => total + value, 0);

const waitFor = async (check: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
};

/** Opens connections ahead (where the engine pools them), so concurrent calls start together. */
const warm = (stores: GatewayStore[], connections: number) =>
  Promise.all(stores.flatMap((store) => Array.from({ length: connections }, () => store.ping())));

/**
 * `open` and `openAnother` of a contract suite, each store closed after its test. Call it inside
 * the suite's `describe`.
 */
export function storesClosedAfterEach(factory: StoreFactory) {
  let opened: GatewayStore[] = [];
  const keep = async (store: Promise<GatewayStore>) => {
    opened.push(await store);
    return opened.at(-1)!;
  };
  afterEach(async () => {
    const closing = opened;
    opened = [];
    await Promise.all(closing.map((store) => store.close()));
  });
  return { open: () => keep(factory.open()), openAnother: () => keep(factory.openAnother()) };
}

export function describeStoreContract(factory: StoreFactory): void {
  const { open, openAnother } = storesClosedAfterEach(factory);

  describe('keys', () => {
    it('stores keys and reads them back by id, by digest, and in creation order', async () => {
      const store = await open();
      const account = keyRow({
        limitNanos: 5_000 * USD,
        graceNanos: 7 * USD,
        consumptionNanos: 3 * USD,
        rpmLimit: 60,
        tpmLimit: 100_000,
      });
      const child = keyRow({
        id: 'key_child',
        kind: 'allocated_child',
        parentId: 'key_account',
        expiresAt: 1_800_000_000,
        createdAt: 1_700_000_001,
      });
      const shared = keyRow({
        id: 'key_shared',
        kind: 'shared_child',
        parentId: 'key_account',
        disabled: true,
        revokedAt: 1_700_000_500,
        createdAt: 1_700_000_001,
      });
      // Not in creation order, so the listing's order is its own.
      for (const row of [account, shared, child]) await store.insertKey(row);

      expect(await store.getKey('key_account')).toEqual(account);
      expect(await store.getKey('key_shared')).toEqual(shared);
      expect(await store.findKeyByDigest('v1$key_child')).toEqual(child);
      expect(await store.getKey('key_missing')).toBeUndefined();
      expect(await store.findKeyByDigest('v1$missing')).toBeUndefined();
      expect((await store.listKeys()).map((row) => row.id)).toEqual([
        'key_account',
        'key_child',
        'key_shared',
      ]);
    });

    it('lists the keys of the accounts asked for: each account and its children', async () => {
      const store = await open();
      const other = keyRow({ id: 'key_other', digest: 'v1$key_other', createdAt: 1_700_000_002 });
      await store.insertKey(keyRow());
      await store.insertKey(other);
      await store.insertKey(
        keyRow({
          id: 'key_other_child',
          kind: 'shared_child',
          parentId: 'key_other',
          digest: 'v1$key_other_child',
          createdAt: 1_700_000_003,
        }),
      );
      const ids = async (accountIds: string[]) =>
        (await store.listKeys({ accountIds })).map((row) => row.id);
      expect(await ids(['key_other'])).toEqual(['key_other', 'key_other_child']);
      expect(await ids(['key_account', 'key_other'])).toEqual([
        'key_account',
        'key_other',
        'key_other_child',
      ]);
      expect(await ids(['key_missing'])).toEqual([]);
      expect(await ids([])).toEqual([]);
    });

    it('changes exactly the fields an update names', async () => {
      const store = await open();
      await store.insertKey(keyRow());
      await store.insertKey(keyRow({ id: 'key_other' }));
      const update = {
        name: 'renamed',
        limitNanos: 9_000 * USD,
        graceNanos: 2 * USD,
        expiresAt: 1_900_000_000,
        disabled: true,
        revokedAt: 1_700_000_900,
        digest: 'v2$rotated',
        masked: 'sk-gw-…wxyz',
        rpmLimit: 30,
        tpmLimit: 5_000_000,
      };
      for (const [field, value] of Object.entries(update)) {
        await store.updateKey('key_account', { [field]: value });
        expect(await store.getKey('key_account')).toMatchObject({ [field]: value });
      }
      expect(await store.getKey('key_account')).toEqual({ ...keyRow(), ...update });
      // Back to null; undefined fields and empty updates leave the row alone.
      await store.updateKey('key_account', {
        expiresAt: null,
        rpmLimit: null,
        tpmLimit: null,
        name: undefined,
      });
      await store.updateKey('key_account', {});
      expect(await store.getKey('key_account')).toEqual({
        ...keyRow(),
        ...update,
        expiresAt: null,
        rpmLimit: null,
        tpmLimit: null,
      });
      expect(await store.getKey('key_other')).toEqual(keyRow({ id: 'key_other' }));
      expect(await store.findKeyByDigest('v2$rotated')).toMatchObject({ id: 'key_account' });
    });

    it('refuses a second key with the same digest', async () => {
      const store = await open();
      await store.insertKey(keyRow());
      await expect(
        store.insertKey(keyRow({ id: 'key_twin', digest: 'v1$key_account' })),
      ).rejects.toThrow();
      expect(await store.getKey('key_twin')).toBeUndefined();
    });

    it('tells a watcher when another instance changes a key, and stops when asked', async () => {
      const store = await open();
      const other = await openAnother();
      let changes = 0;
      const stop = store.watchKeyChanges(() => changes++);
      // Give a listener time to start listening.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await other.insertKey(keyRow());
      expect(await waitFor(() => changes > 0, 1_000)).toBe(true);
      const seen = changes;
      await other.updateKey('key_account', { disabled: true });
      expect(await waitFor(() => changes > seen, 1_000)).toBe(true);
      stop();
      const stopped = changes;
      await other.updateKey('key_account', { disabled: false });
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(changes).toBe(stopped);
    });
  });

  describe('generation records', () => {
    it('keeps every field of a record', async () => {
      const store = await open();
      await store.insertKey(keyRow());
      const row = generationRow({
        streamed: true,
        finishReason: null,
        outcome: 'ended_early',
        costNanos: 12_345 * USD + 678,
        latencyMs: 1234.75,
        attempts: [
          { provider: 'first', status: 503, latencyMs: 40 },
          { provider: 'second', status: 'timeout', latencyMs: 5000 },
          { provider: 'simulated', status: 200, latencyMs: 12.5 },
        ],
        usageEstimated: true,
        chargeCapped: true,
        // Every token count the record defines, each its own: one added there is kept too.
        ...Object.fromEntries(usageFieldNames.map((name, index) => [name, 7 + index])),
        translation: {
          dropped: ['generationConfig.topK', 'messages.0.content.1.cache_control'],
          adjusted: ['max_tokens=32000->8192'],
        },
        requestedModel: 'team/coder',
        overheadMs: 3.25,
        sessionId: 'ses_1',
        batchId: 'batch_1',
      });
      const settled = generationRow({ id: 'gen_2', settled: true, settledAt: 1_700_000_200 });
      await store.insertGenerations([row, settled]);
      expect(await store.getGeneration('gen_1')).toEqual(row);
      expect(await store.getGeneration('gen_2')).toEqual(settled);
      expect(await store.getGeneration('gen_missing')).toBeUndefined();
    });

    it('lists newest first in pages that hold still while new records arrive', async () => {
      const store = await open();
      await store.insertKey(keyRow());
      const second = 1_700_000_100;
      const first = [0, 1, 2, 3, 4, 5, 6].map((index) =>
        generationRow({ id: `gen_${index}`, createdAt: index < 2 ? second - 1 : second }),
      );
      await store.insertGenerations(first);

      const page1 = await store.listGenerations({ keyId: 'key_account', limit: 3 });
      expect(page1.map(({ row }) => row.id)).toEqual(['gen_6', 'gen_5', 'gen_4']);
      // Records written since, in the same second and later, do not shift the next pages.
      await store.insertGenerations([
        generationRow({ id: 'gen_new_1', createdAt: second }),
        generationRow({ id: 'gen_new_2', createdAt: second }),
        generationRow({ id: 'gen_new_3', createdAt: second + 1 }),
      ]);
      const page2 = await store.listGenerations({
        keyId: 'key_account',
        limit: 3,
        after: page1.at(-1)!.position,
      });
      expect(page2.map(({ row }) => row.id)).toEqual(['gen_3', 'gen_2', 'gen_1']);
      const page3 = await store.listGenerations({
        keyId: 'key_account',
        limit: 3,
        after: page2.at(-1)!.position,
      });
      expect(page3.map(({ row }) => row.id)).toEqual(['gen_0']);
      expect(page3[0]!.row).toEqual(first[0]);
      // Written order: each later record has a larger position.
      const seqs = [...page1, ...page2, ...page3].map(({ position }) => position.seq).reverse();
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(7);
      const top = await store.listGenerations({ keyId: 'key_account', limit: 3 });
      expect(top.map(({ row }) => row.id)).toEqual(['gen_new_3', 'gen_new_2', 'gen_new_1']);
    });

    it('reads a key with the keys it replaced: their records merged in order, and their totals', async () => {
      const store = await open();
      await store.insertKey(keyRow());
      await store.insertKey(
        keyRow({ id: 'key_old', kind: 'allocated_child', parentId: 'key_account' }),
      );
      await store.insertKey(
        keyRow({
          id: 'key_new',
          kind: 'allocated_child',
          parentId: 'key_account',
          replacesId: 'key_old',
        }),
      );
      expect((await store.getKey('key_new'))?.replacesId).toBe('key_old');
      expect((await store.getKey('key_old'))?.replacesId).toBeNull();
      const day = 20_000;
      const at = (offset: number) => day * 86_400 + offset;
      const by = (keyId: string, id: string, createdAt: number) =>
        generationRow({ id, keyId, fundingKeyId: keyId, createdAt });
      await store.insertGenerations([
        by('key_old', 'o1', at(10)),
        by('key_new', 'n1', at(20)),
        by('key_old', 'o2', at(30)),
        by('key_old', 'o3', at(30)),
        by('key_new', 'n2', at(40)),
        by('key_account', 'a1', at(25)),
      ]);
      const scope = { keyId: 'key_new', predecessorIds: ['key_old'] };
      const page1 = await store.listGenerations({ ...scope, limit: 3 });
      expect(page1.map(({ row }) => row.id)).toEqual(['n2', 'o3', 'o2']);
      const page2 = await store.listGenerations({
        ...scope,
        limit: 3,
        after: page1.at(-1)!.position,
      });
      expect(page2.map(({ row }) => row.id)).toEqual(['n1', 'o1']);
      const filtered = await store.listGenerations({
        ...scope,
        from: at(25),
        to: at(40),
        limit: 10,
      });
      expect(filtered.map(({ row }) => row.id)).toEqual(['o3', 'o2']);
      const [totals] = await store.activity(scope, day, day);
      expect(totals?.requests).toBe(5);
      expect(totals?.costNanos).toBe(5 * (3 * USD + 1));
    });

    it("filters by model, outcome and time, and reads an account's whole tree", async () => {
      const store = await open();
      await store.insertKey(keyRow());
      await store.insertKey(
        keyRow({ id: 'key_child', kind: 'shared_child', parentId: 'key_account' }),
      );
      await store.insertKey(keyRow({ id: 'key_stranger' }));
      await store.insertGenerations([
        generationRow({ id: 'a1', createdAt: 100 }),
        generationRow({ id: 'a2', createdAt: 200, model: 'sim/other' }),
        generationRow({ id: 'c1', keyId: 'key_child', createdAt: 150, outcome: 'ended_early' }),
        generationRow({ id: 's1', keyId: 'key_stranger', fundingKeyId: 'key_stranger' }),
      ]);
      const ids = async (query: Parameters<GatewayStore['listGenerations']>[0]) =>
        (await store.listGenerations(query)).map(({ row }) => row.id);
      expect(await ids({ accountId: 'key_account', limit: 10 })).toEqual(['a2', 'c1', 'a1']);
      expect(await ids({ keyId: 'key_account', limit: 10 })).toEqual(['a2', 'a1']);
      // A key's own records win over an account scope given with it.
      expect(await ids({ keyId: 'key_child', accountId: 'key_account', limit: 10 })).toEqual([
        'c1',
      ]);
      expect(await ids({ accountId: 'key_account', model: 'sim/other', limit: 10 })).toEqual([
        'a2',
      ]);
      expect(await ids({ accountId: 'key_account', outcome: 'ended_early', limit: 10 })).toEqual([
        'c1',
      ]);
      expect(await ids({ accountId: 'key_account', from: 150, to: 200, limit: 10 })).toEqual([
        'c1',
      ]);
    });

    it("lists an agent session's records and sums each session of a scope", async () => {
      const store = await open();
      await store.insertKey(keyRow());
      await store.insertKey(keyRow({ id: 'key_stranger' }));
      const inSession = (id: string, sessionId: string | null, createdAt: number, more = {}) =>
        generationRow({ id, sessionId, createdAt, latencyMs: 2_000, ...more });
      await store.insertGenerations([
        inSession('a1', 'ses_a', 1_000, { cacheReadTokens: 4 }),
        inSession('a2', 'ses_a', 1_060, { costNanos: 7 }),
        inSession('b1', 'ses_b', 1_030),
        inSession('n1', null, 1_100),
        inSession('old', 'ses_old', 10),
        generationRow({ id: 's1', keyId: 'key_stranger', sessionId: 'ses_a', createdAt: 1_000 }),
      ]);
      const listed = await store.listGenerations({
        accountId: 'key_account',
        sessionId: 'ses_a',
        limit: 10,
      });
      expect(listed.map(({ row }) => row.id)).toEqual(['a2', 'a1']);
      expect(listed[0]!.row.sessionId).toBe('ses_a');
      expect(await store.sessions({ accountId: 'key_account' }, 500, 10)).toEqual([
        {
          sessionId: 'ses_a',
          requests: 2,
          // The first request began 2 s before its record was written.
          startedAt: 998,
          endedAt: 1_060,
          promptTokens: 20,
          completionTokens: 40,
          cacheReadTokens: 4,
          cacheHits: 1,
          costNanos: 3 * USD + 1 + 7,
        },
        {
          sessionId: 'ses_b',
          requests: 1,
          startedAt: 1_028,
          endedAt: 1_030,
          promptTokens: 10,
          completionTokens: 20,
          cacheReadTokens: 0,
          cacheHits: 0,
          costNanos: 3 * USD + 1,
        },
      ]);
    });

    it('keeps per-day totals of requests, tokens and cost per model', async () => {
      const store = await open();
      await store.insertKey(keyRow());
      await store.insertKey(
        keyRow({ id: 'key_child', kind: 'allocated_child', parentId: 'key_account' }),
      );
      const day = 19_700;
      await store.insertGenerations([
        generationRow({ id: 'g1', createdAt: day * 86_400 + 5, costNanos: 5 * USD }),
        generationRow({ id: 'g2', createdAt: day * 86_400 + 6, costNanos: 7 }),
      ]);
      await store.insertGenerations([
        generationRow({
          id: 'g3',
          keyId: 'key_child',
          fundingKeyId: 'key_child',
          createdAt: day * 86_400 + 86_399,
          model: 'sim/b',
        }),
        generationRow({ id: 'g4', createdAt: (day + 1) * 86_400, promptTokens: 1 }),
        generationRow({ id: 'g5', createdAt: (day + 5) * 86_400 }),
      ]);
      expect(await store.activity({ accountId: 'key_account' }, day, day + 1)).toEqual([
        {
          day,
          model: 'sim/b',
          requests: 1,
          promptTokens: 10,
          completionTokens: 20,
          costNanos: 3 * USD + 1,
        },
        {
          day,
          model: 'sim/chat-standard',
          requests: 2,
          promptTokens: 20,
          completionTokens: 40,
          costNanos: 5 * USD + 7,
        },
        {
          day: day + 1,
          model: 'sim/chat-standard',
          requests: 1,
          promptTokens: 1,
          completionTokens: 20,
          costNanos: 3 * USD + 1,
        },
      ]);
      expect(await store.activity({ keyId: 'key_child' }, day, day + 10)).toHaveLength(1);
    });

    it('writes all of a batch or none of it', async () => {
      const store = await open();
      await store.insertKey(keyRow());
      const broken = generationRow({ id: 'gen_broken', model: null as unknown as string });
      await expect(
        store.insertGenerations([generationRow({ id: 'gen_ok' }), broken]),
      ).rejects.toThrow();
      expect(await store.getGeneration('gen_ok')).toBeUndefined();
      expect(await store.pendingFor('key_account')).toBe(0);
      expect((await store.fundingFigures('key_account'))?.pendingNanos).toBe(0);
      expect(await store.activity({ keyId: 'key_account' }, 0, 100_000)).toEqual([]);
    });

    it('skips a record already stored, so a retried batch charges once', async () => {
      const store = await open();
      await store.insertKey(keyRow());
      await store.insertGenerations([generationRow()]);
      await store.insertGenerations([generationRow(), generationRow({ id: 'gen_2' })]);
      expect(await store.pendingFor('key_account')).toBe(2 * (3 * USD + 1));
      expect((await store.fundingFigures('key_account'))?.pendingNanos).toBe(2 * (3 * USD + 1));
      expect((await store.activity({ keyId: 'key_account' }, 0, 100_000))[0]?.requests).toBe(2);
    });
  });

  describe('pending charges and settlement', () => {
    it('counts unsettled cost per funding key and settles it into consumption once', async () => {
      const store = await open();
      await store.insertKey(keyRow({ consumptionNanos: 1 * USD }));
      await store.insertKey(
        keyRow({ id: 'key_shared', kind: 'shared_child', parentId: 'key_account' }),
      );
      await store.insertKey(keyRow({ id: 'key_other' }));
      await store.insertGenerations([
        generationRow({ id: 'g1', costNanos: 2 * USD }),
        generationRow({ id: 'g2', keyId: 'key_shared', costNanos: 3 * USD }),
        generationRow({ id: 'g3', keyId: 'key_other', fundingKeyId: 'key_other', costNanos: 4 }),
        generationRow({ id: 'g4', settled: true, settledAt: 5, costNanos: 100 * USD }),
      ]);
      expect(await store.pendingFor('key_account')).toBe(5 * USD);
      expect(await store.pendingFor('key_shared')).toBe(0);
      expect(await store.pendingByFundingKey()).toEqual(
        new Map([
          ['key_account', 5 * USD],
          ['key_other', 4],
        ]),
      );
      expect(await store.fundingFigures('key_account')).toEqual({
        limitNanos: 50 * USD,
        graceNanos: 0,
        consumptionNanos: 1 * USD,
        pendingNanos: 5 * USD,
        reservedNanos: 0,
        periodBaseNanos: 0,
      });

      expect(await store.settlePending(1_700_001_000)).toEqual(
        new Map([
          ['key_account', 5 * USD],
          ['key_other', 4],
        ]),
      );
      expect(await store.getGeneration('g2')).toMatchObject({
        settled: true,
        settledAt: 1_700_001_000,
      });
      expect(await store.getGeneration('g4')).toMatchObject({ settledAt: 5 });
      expect(await store.fundingFigures('key_account')).toMatchObject({
        consumptionNanos: 6 * USD,
        pendingNanos: 0,
      });
      expect((await store.getKey('key_other'))?.consumptionNanos).toBe(4);
      expect(await store.pendingByFundingKey()).toEqual(new Map());
      expect(await store.settlePending(1_700_002_000)).toEqual(new Map());
      expect((await store.getKey('key_account'))?.consumptionNanos).toBe(6 * USD);
      expect(await store.fundingFigures('key_missing')).toBeUndefined();
    });

    it('moves each charge once when two instances settle while records arrive', async () => {
      const store = await open();
      const other = await openAnother();
      await store.insertKey(keyRow());
      await store.insertKey(keyRow({ id: 'key_b' }));
      await warm([store, other], 3);
      const moved: Array<Map<string, number>> = [];
      let total = 0;
      for (let round = 0; round < 10; round++) {
        const batch = [0, 1, 2].map((index) => {
          const costNanos = USD + round * 10 + index;
          total += costNanos;
          return generationRow({
            id: `gen_${round}_${index}`,
            ...(index === 2 ? { keyId: 'key_b', fundingKeyId: 'key_b' } : {}),
            costNanos,
          });
        });
        const [, first, second] = await Promise.all([
          store.insertGenerations(batch),
          store.settlePending(round),
          other.settlePending(round),
        ]);
        moved.push(first, second);
      }
      moved.push(await other.settlePending(99));
      const movedTotal = sum(moved.flatMap((map) => [...map.values()]));
      expect(movedTotal).toBe(total);
      const keys = [await store.getKey('key_account'), await store.getKey('key_b')];
      expect(sum(keys.map((key) => key!.consumptionNanos))).toBe(total);
      for (const id of ['key_account', 'key_b']) {
        const records = await store.listGenerations({ keyId: id, limit: 100 });
        const figures = await store.fundingFigures(id);
        expect(figures).toMatchObject({
          consumptionNanos: sum(records.map(({ row }) => row.costNanos)),
          pendingNanos: 0,
        });
        expect(records.every(({ row }) => row.settled)).toBe(true);
      }
    });
  });

  describe('key events and the ledger', () => {
    it("lists a key's events newest first, in pages", async () => {
      const store = await open();
      await store.insertKey(keyRow());
      await store.insertKey(keyRow({ id: 'key_other' }));
      const event = (index: number): Omit<KeyEventRow, 'id'> => ({
        keyId: 'key_account',
        actor: index % 2 === 0 ? 'cli' : 'key_account',
        action: `action_${index}`,
        changes: { limit_usd: { old: index, new: index + 1 }, name: { old: null, new: 'n' } },
        note: index === 0 ? 'first' : null,
        createdAt: 1_700_000_000 + index,
      });
      for (let index = 0; index < 5; index++) await store.insertKeyEvent(event(index));
      await store.insertKeyEvent({ ...event(9), keyId: 'key_other' });

      const page1 = await store.listKeyEvents('key_account', { limit: 2 });
      expect(page1.map((row) => row.action)).toEqual(['action_4', 'action_3']);
      expect(page1[0]).toEqual({ id: page1[0]!.id, ...event(4) });
      const page2 = await store.listKeyEvents('key_account', {
        limit: 10,
        beforeId: page1.at(-1)!.id,
      });
      expect(page2.map((row) => row.action)).toEqual(['action_2', 'action_1', 'action_0']);
      expect(page2.at(-1)).toEqual({ id: page2.at(-1)!.id, ...event(0) });
      expect(await store.listKeyEvents('key_missing', { limit: 10 })).toEqual([]);
    });

    it("sums a key's ledger", async () => {
      const store = await open();
      await store.insertKey(keyRow());
      await store.insertKey(keyRow({ id: 'key_child', kind: 'allocated_child' }));
      await store.insertLedgerEntry(ledgerEntry());
      await store.insertLedgerEntry(
        ledgerEntry({ entry: 'credit', rechargeNanos: 0, creditNanos: 2 * USD, note: 'sorry' }),
      );
      await store.insertLedgerEntry(
        ledgerEntry({
          entry: 'allocation',
          rechargeNanos: 0,
          allocatedNanos: 3 * USD,
          limitNanos: -3 * USD,
          counterpartId: 'key_child',
          actor: 'admin',
        }),
      );
      await store.insertLedgerEntry(
        ledgerEntry({ keyId: 'key_child', entry: 'allocation', allocatedNanos: 3 * USD }),
      );
      expect(await store.ledgerTotals('key_account')).toEqual({
        rechargeNanos: 10 * USD,
        creditNanos: 2 * USD,
        allocatedNanos: 3 * USD,
      });
      expect(await store.ledgerTotals('key_missing')).toEqual({
        rechargeNanos: 0,
        creditNanos: 0,
        allocatedNanos: 0,
      });
    });
  });

  describe('transactions', () => {
    it('commits every call made inside, and those calls see each other', async () => {
      const store = await open();
      const result = await store.transaction(async () => {
        await store.insertKey(keyRow());
        expect(await store.getKey('key_account')).toBeDefined();
        await store.insertKeyEvent({
          keyId: 'key_account',
          actor: 'admin',
          action: 'created',
          changes: {},
          note: null,
          createdAt: 1,
        });
        await store.insertLedgerEntry(ledgerEntry());
        await store.insertGenerations([generationRow()]);
        return 'done';
      });
      expect(result).toBe('done');
      const other = await openAnother();
      expect(await other.getKey('key_account')).toEqual(keyRow());
      expect(await other.listKeyEvents('key_account', { limit: 5 })).toHaveLength(1);
      expect((await other.ledgerTotals('key_account')).rechargeNanos).toBe(10 * USD);
      expect(await other.getGeneration('gen_1')).toBeDefined();
    });

    it('rolls back everything when the work throws, nested transactions included', async () => {
      const store = await open();
      await store.insertKey(keyRow());
      const failure = store.transaction(async () => {
        await store.updateKey('key_account', { name: 'changed', limitNanos: 1 });
        await store.insertKey(keyRow({ id: 'key_new' }));
        await store.transaction(async () => {
          await store.insertLedgerEntry(ledgerEntry());
          await store.insertGenerations([generationRow()]);
          await store.openInflight([inflightRow()]);
        });
        throw new Error('changed my mind');
      });
      await expect(failure).rejects.toThrow('changed my mind');
      expect(await store.getKey('key_account')).toEqual(keyRow());
      expect(await store.getKey('key_new')).toBeUndefined();
      expect(await store.ledgerTotals('key_account')).toMatchObject({ rechargeNanos: 0 });
      expect(await store.getGeneration('gen_1')).toBeUndefined();
      expect(await store.listInflight()).toEqual([]);
      expect(await store.fundingFigures('key_account')).toMatchObject({ pendingNanos: 0 });
    });

    it('does not take in a call made from outside while it is open', async () => {
      const store = await open();
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const transaction = store.transaction(async () => {
        await store.insertKey(keyRow({ id: 'key_inside' }));
        entered();
        await gate;
        throw new Error('rolled back');
      });
      await inside;
      // From the test's own context, not the transaction's: neither joins it.
      const write = store.insertKey(keyRow({ id: 'key_outside' }));
      const read = store.getKey('key_inside');
      release();
      await expect(transaction).rejects.toThrow('rolled back');
      await write;
      expect(await read).toBeUndefined();
      expect(await store.getKey('key_outside')).toEqual(keyRow({ id: 'key_outside' }));
      expect(await store.getKey('key_inside')).toBeUndefined();
    });
  });

  describe('in-flight requests', () => {
    it('opens, checkpoints and renews the rows of one instance', async () => {
      const store = await open();
      await store.insertKey(keyRow());
      const rows = [
        inflightRow({ id: 'req_a1' }),
        inflightRow({ id: 'req_a2', streamed: false }),
        inflightRow({ id: 'req_b1', instanceId: 'instance-b', createdAt: 1_700_000_001 }),
      ];
      await store.openInflight(rows);
      expect(await store.listInflight()).toEqual(rows);

      await store.checkpointInflight('instance-a', 1_700_000_060_000, [
        {
          id: 'req_a1',
          provider: 'fallback',
          upstreamModel: 'chat-fallback',
          promptTokens: 100,
          completionTokens: 250,
          costNanos: 2 * USD + 5,
        },
      ]);
      expect(await store.listInflight()).toEqual([
        {
          ...rows[0],
          provider: 'fallback',
          upstreamModel: 'chat-fallback',
          promptTokens: 100,
          completionTokens: 250,
          costNanos: 2 * USD + 5,
          leaseExpiresAt: 1_700_000_060_000,
        },
        { ...rows[1], leaseExpiresAt: 1_700_000_060_000 },
        rows[2],
      ]);
      // Named rows only: one the instance no longer runs is left to lapse.
      await store.checkpointInflight('instance-a', 1_700_000_090_000, [], ['req_a2', 'req_b1']);
      expect((await store.listInflight()).map((row) => [row.id, row.leaseExpiresAt])).toEqual([
        ['req_a1', 1_700_000_060_000],
        ['req_a2', 1_700_000_090_000],
        ['req_b1', rows[2]!.leaseExpiresAt],
      ]);
    });

    it('drops the rows of requests that ended without a record, giving back what they held', async () => {
      const store = await open();
      await store.insertKey(keyRow());
      expect(await store.reserve(inflightRow({ id: 'req_1', reservedNanos: 4 * USD }))).toEqual({
        ok: true,
      });
      await store.openInflight([inflightRow({ id: 'req_2' })]);
      expect((await store.fundingFigures('key_account'))?.reservedNanos).toBe(4 * USD);
      await store.dropInflight(['req_1', 'req_2', 'req_missing']);
      await store.dropInflight(['req_1']);
      expect(await store.listInflight()).toEqual([]);
      expect((await store.fundingFigures('key_account'))?.reservedNanos).toBe(0);
    });

    it('removes the row when its record is written, moving its reservation to pending', async () => {
      const store = await open();
      await store.insertKey(keyRow());
      await store.reserve(inflightRow({ id: 'gen_1', reservedNanos: 10 * USD }));
      await store.reserve(inflightRow({ id: 'gen_2', reservedNanos: 10 * USD }));
      await store.insertGenerations([generationRow({ id: 'gen_1', costNanos: 4 * USD })]);
      expect((await store.listInflight()).map((row) => row.id)).toEqual(['gen_2']);
      expect(await store.fundingFigures('key_account')).toMatchObject({
        pendingNanos: 4 * USD,
        reservedNanos: 10 * USD,
      });
    });

    it('closes rows whose lease ran out as ended_early records charging what was checkpointed', async () => {
      const store = await open();
      await store.insertKey(keyRow());
      await store.insertKey(
        keyRow({ id: 'key_shared', kind: 'shared_child', parentId: 'key_account' }),
      );
      const now = 1_700_000_100_000;
      await store.reserve(
        inflightRow({
          id: 'req_expired_used',
          keyId: 'key_shared',
          reservedNanos: 5 * USD,
          leaseExpiresAt: now - 1,
        }),
      );
      await store.reserve(
        inflightRow({ id: 'req_expired_unused', reservedNanos: 2 * USD, leaseExpiresAt: now - 1 }),
      );
      await store.reserve(
        inflightRow({ id: 'req_alive', reservedNanos: 1 * USD, leaseExpiresAt: now + 1 }),
      );
      await store.checkpointInflight('nobody', 0, [
        {
          id: 'req_expired_used',
          provider: 'simulated',
          upstreamModel: 'chat-standard',
          promptTokens: 30,
          completionTokens: 700,
          costNanos: 3 * USD,
        },
      ]);

      const result = await store.reclaimInflight(now);
      expect(result.released).toEqual(new Map([['key_account', 7 * USD]]));
      expect(result.records).toHaveLength(1);
      const record = result.records[0]!;
      expect(record).toMatchObject({
        id: 'req_expired_used',
        keyId: 'key_shared',
        fundingKeyId: 'key_account',
        outcome: 'ended_early',
        promptTokens: 30,
        completionTokens: 700,
        costNanos: 3 * USD,
        settled: false,
        streamed: true,
      });
      expect(await store.getGeneration('req_expired_used')).toEqual(record);
      expect(await store.getGeneration('req_expired_unused')).toBeUndefined();
      expect((await store.listInflight()).map((row) => row.id)).toEqual(['req_alive']);
      expect(await store.fundingFigures('key_account')).toMatchObject({
        pendingNanos: 3 * USD,
        reservedNanos: 1 * USD,
      });
      expect(await store.pendingFor('key_account')).toBe(3 * USD);
      expect(await store.activity({ accountId: 'key_account' }, 0, 100_000)).toMatchObject([
        { requests: 1, costNanos: 3 * USD },
      ]);

      // Idempotent: nothing left to close.
      expect(await store.reclaimInflight(now)).toEqual({ records: [], released: new Map() });
    });

    it('closes every row of an instance when asked, whatever its lease', async () => {
      const store = await open();
      await store.insertKey(keyRow());
      const far = 1_800_000_000_000;
      await store.openInflight([
        inflightRow({ id: 'req_a', leaseExpiresAt: far, completionTokens: 5, costNanos: 9 }),
        inflightRow({ id: 'req_b', instanceId: 'instance-b', leaseExpiresAt: far }),
      ]);
      const result = await store.reclaimInflight(1_700_000_000_000, { instanceId: 'instance-a' });
      expect(result.records.map((row) => row.id)).toEqual(['req_a']);
      expect(result.released).toEqual(new Map());
      expect((await store.listInflight()).map((row) => row.id)).toEqual(['req_b']);
    });

    it('closes each row once when two instances reclaim at the same time', async () => {
      const store = await open();
      const other = await openAnother();
      await store.insertKey(keyRow({ limitNanos: 1_000 * USD }));
      const now = 1_700_000_100_000;
      for (let index = 0; index < 20; index++) {
        await store.reserve(
          inflightRow({
            id: `req_${String(index).padStart(2, '0')}`,
            reservedNanos: 10 * USD,
            leaseExpiresAt: now - 1,
          }),
        );
      }
      await store.checkpointInflight(
        'nobody',
        0,
        Array.from({ length: 20 }, (_, index) => ({
          id: `req_${String(index).padStart(2, '0')}`,
          provider: 'simulated',
          upstreamModel: 'chat-standard',
          promptTokens: 1,
          completionTokens: index + 1,
          costNanos: USD + index,
        })),
      );
      await warm([store, other], 4);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, index) => (index % 2 ? other : store).reclaimInflight(now)),
      );
      const closed = results.flatMap((result) => result.records.map((row) => row.id));
      expect(closed.sort()).toEqual(
        Array.from({ length: 20 }, (_, index) => `req_${String(index).padStart(2, '0')}`),
      );
      const released = sum(results.flatMap((result) => [...result.released.values()]));
      expect(released).toBe(200 * USD);
      const charged = sum(Array.from({ length: 20 }, (_, index) => USD + index));
      expect(await store.fundingFigures('key_account')).toMatchObject({
        reservedNanos: 0,
        pendingNanos: charged,
      });
      expect(await store.pendingFor('key_account')).toBe(charged);
      expect(await store.listInflight()).toEqual([]);
    });

    it('does not give back twice, nor charge past what the reclaim left, when records arrive after their rows were reclaimed', async () => {
      const store = await open();
      await store.insertKey(keyRow());
      await store.reserve(
        inflightRow({ id: 'gen_1', reservedNanos: 6 * USD, leaseExpiresAt: 1, promptTokens: 0 }),
      );
      await store.reserve(
        inflightRow({
          id: 'gen_3',
          reservedNanos: 6 * USD,
          leaseExpiresAt: 1,
          completionTokens: 9,
          costNanos: 1 * USD,
        }),
      );
      await store.reserve(
        inflightRow({
          id: 'gen_4',
          reservedNanos: 6 * USD,
          leaseExpiresAt: 1,
          completionTokens: 9,
          costNanos: 2 * USD,
        }),
      );
      await store.reserve(inflightRow({ id: 'gen_2', reservedNanos: 6 * USD }));
      await store.reclaimInflight(2);
      expect(await store.fundingFigures('key_account')).toMatchObject({
        reservedNanos: 6 * USD,
        pendingNanos: 3 * USD,
      });
      // The requests finished after all (their instance was only slow): the batch is not
      // refused and nothing more is given back. The reclaim gave their reservations back, and
      // others may have spent that room since, so none of them is charged more than the reclaim
      // charged: a closure is replaced by the request's own record, capped at the closure's
      // cost; a row closed with nothing checkpointed leaves nothing to charge.
      const late = [
        generationRow({ id: 'gen_1', costNanos: 2 * USD, inflightRowWritten: true }),
        // Its row is still there: its reservation covers it.
        generationRow({ id: 'gen_2', costNanos: 1 * USD, inflightRowWritten: true }),
        generationRow({ id: 'gen_3', costNanos: 4 * USD, completionTokens: 40 }),
        // The provider counted less than the checkpoint's estimate: the difference comes back.
        generationRow({ id: 'gen_4', costNanos: 1 * USD, completionTokens: 5 }),
      ];
      const corrections = await store.insertGenerations(late);
      expect(corrections.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
        { id: 'gen_1', pendingNanos: 0, chargedNanos: 0 },
        { id: 'gen_3', pendingNanos: 0, chargedNanos: 0 },
        { id: 'gen_4', pendingNanos: -1 * USD, chargedNanos: -1 * USD },
      ]);
      expect(await store.fundingFigures('key_account')).toMatchObject({
        reservedNanos: 0,
        pendingNanos: 3 * USD,
      });
      expect(await store.getGeneration('gen_1')).toMatchObject({
        costNanos: 0,
        chargeCapped: true,
      });
      expect(await store.getGeneration('gen_2')).toMatchObject({
        costNanos: 1 * USD,
        chargeCapped: false,
      });
      expect(await store.getGeneration('gen_3')).toMatchObject({
        outcome: 'completed',
        costNanos: 1 * USD,
        chargeCapped: true,
        completionTokens: 40,
        usageEstimated: false,
        // Its place in the listings is the closure's.
        createdAt: 1_700_000_000,
      });
      expect(await store.getGeneration('gen_4')).toMatchObject({
        costNanos: 1 * USD,
        chargeCapped: false,
      });
      const day = Math.floor(1_700_000_000 / 86_400);
      expect(await store.activity({ keyId: 'key_account' }, day, day)).toEqual([
        expect.objectContaining({ requests: 4, completionTokens: 85, costNanos: 3 * USD }),
      ]);
      // The same batch again (a retry after a lost answer) changes nothing in the store.
      expect(await store.insertGenerations(late)).toEqual([]);
      expect(await store.pendingFor('key_account')).toBe(3 * USD);
    });

    it('unsettles a settled closure when the request writes its own record later, charging the difference', async () => {
      const store = await open();
      await store.insertKey(keyRow());
      await store.reserve(
        inflightRow({
          id: 'gen_1',
          reservedNanos: 6 * USD,
          leaseExpiresAt: 1,
          completionTokens: 9,
          costNanos: 2 * USD,
        }),
      );
      await store.reclaimInflight(2);
      await store.settlePending(1_700_000_500);
      expect(await store.fundingFigures('key_account')).toMatchObject({
        consumptionNanos: 2 * USD,
        pendingNanos: 0,
      });
      // Less than checkpointed: the provider's own count is what is charged.
      expect(
        await store.insertGenerations([
          generationRow({ id: 'gen_1', costNanos: 1 * USD + 5, completionTokens: 4 }),
        ]),
      ).toEqual([{ id: 'gen_1', pendingNanos: 1 * USD + 5, chargedNanos: -(1 * USD) + 5 }]);
      expect(await store.fundingFigures('key_account')).toMatchObject({
        consumptionNanos: 0,
        pendingNanos: 1 * USD + 5,
      });
      expect(await store.getGeneration('gen_1')).toMatchObject({
        outcome: 'completed',
        settled: false,
        settledAt: null,
      });
      expect(await store.settlePending(1_700_000_900)).toEqual(
        new Map([['key_account', 1 * USD + 5]]),
      );
      expect(await store.fundingFigures('key_account')).toMatchObject({
        consumptionNanos: 1 * USD + 5,
        pendingNanos: 0,
        reservedNanos: 0,
      });
      const day = Math.floor(1_700_000_000 / 86_400);
      expect(await store.activity({ keyId: 'key_account' }, day, day)).toEqual([
        expect.objectContaining({ requests: 1, completionTokens: 4, costNanos: 1 * USD + 5 }),
      ]);
    });
  });

  describe('in-flight requests, racing', () => {
    it('settles while another instance replaces many closures, without a deadlock, and the money adds up', async () => {
      const store = await open();
      const other = await openAnother();
      await store.insertKey(keyRow({ limitNanos: 1_000_000 * USD }));
      await warm([store, other], 4);
      const rounds = 8;
      const perRound = 40;
      for (let round = 0; round < rounds; round += 1) {
        const ids = Array.from(
          { length: perRound },
          (_, index) => `r${round}_${String(index).padStart(3, '0')}`,
        );
        for (const id of ids) {
          await store.reserve(
            inflightRow({
              id,
              reservedNanos: 10,
              leaseExpiresAt: 1,
              completionTokens: 5,
              costNanos: 7,
            }),
          );
        }
        await other.reclaimInflight(2);
        // The stalled instance's requests finish together, in another order than their ids,
        // while the other instance settles (for less than checkpointed: a record is never
        // charged more than its closure).
        const late = ids
          .slice()
          .reverse()
          .map((id) => generationRow({ id, costNanos: 3 }));
        await Promise.all([
          store.insertGenerations(late),
          (async () => {
            await new Promise((resolve) => setTimeout(resolve, 2));
            await other.settlePending(1_700_000_000 + round);
          })(),
        ]);
      }
      await other.settlePending(1_800_000_000);
      expect(await store.fundingFigures('key_account')).toMatchObject({
        consumptionNanos: rounds * perRound * 3,
        pendingNanos: 0,
        reservedNanos: 0,
      });
      const day = Math.floor(1_700_000_000 / 86_400);
      expect(await store.activity({ keyId: 'key_account' }, day, day)).toEqual([
        expect.objectContaining({ requests: rounds * perRound, costNanos: rounds * perRound * 3 }),
      ]);
    });

    it('replaces closures of one key while another instance closes rows of two, without a deadlock on day totals', async () => {
      const store = await open();
      const other = await openAnother();
      for (const id of ['key_1', 'key_2']) {
        await store.insertKey(keyRow({ id, limitNanos: 1_000_000 * USD }));
      }
      await warm([store, other], 4);
      const row = (id: string, keyId: string) =>
        inflightRow({
          id,
          keyId,
          fundingKeyId: keyId,
          reservedNanos: 10,
          leaseExpiresAt: 1,
          completionTokens: 5,
          costNanos: 7,
          createdAt: 1_700_000_000,
        });
      const rounds = 8;
      for (let round = 0; round < rounds; round += 1) {
        const closures = Array.from({ length: 20 }, (_, index) => `x${round}_${index}`);
        for (const id of closures) await store.reserve(row(id, 'key_1'));
        await other.reclaimInflight(2);
        // Rows of both keys (same day and model) for the other instance to close meanwhile.
        for (let index = 0; index < 20; index += 1) {
          await store.reserve(row(`y${round}_1_${index}`, 'key_1'));
          await store.reserve(row(`y${round}_2_${index}`, 'key_2'));
        }
        // New records of key_2 first, then the replacements of key_1's closures.
        const batch = [
          ...Array.from({ length: 5 }, (_, index) =>
            generationRow({
              id: `n${round}_${index}`,
              keyId: 'key_2',
              fundingKeyId: 'key_2',
              createdAt: 1_700_000_000,
              costNanos: 4,
            }),
          ),
          ...closures.map((id) =>
            generationRow({ id, keyId: 'key_1', fundingKeyId: 'key_1', costNanos: 3 }),
          ),
        ];
        await Promise.all([store.insertGenerations(batch), other.reclaimInflight(2)]);
      }
      // key_1: its replaced closures at 3 and the other's closures at 7; key_2: 4s and 7s.
      expect(await store.pendingFor('key_1')).toBe(rounds * (20 * 3 + 20 * 7));
      expect(await store.pendingFor('key_2')).toBe(rounds * (5 * 4 + 20 * 7));
      const day = Math.floor(1_700_000_000 / 86_400);
      const [key1Day] = await store.activity({ keyId: 'key_1' }, day, day);
      expect(key1Day).toMatchObject({
        requests: rounds * 40,
        costNanos: rounds * (20 * 3 + 20 * 7),
      });
    });

    it('gives a row back once when its record and a reclaim race for it', async () => {
      const store = await open();
      const other = await openAnother();
      await store.insertKey(keyRow({ limitNanos: 1_000 * USD }));
      const ids = Array.from({ length: 30 }, (_, index) => `req_${String(index).padStart(2, '0')}`);
      for (const id of ids) {
        await store.reserve(
          inflightRow({
            id,
            reservedNanos: 10 * USD,
            leaseExpiresAt: 1,
            completionTokens: 1,
            costNanos: 1 * USD,
          }),
        );
      }
      await warm([store, other], 4);
      // The records arrive (in small batches, as group commit writes them) while another
      // instance reclaims the same rows as expired.
      await Promise.all([
        ...Array.from({ length: 6 }, (_, batch) =>
          store.insertGenerations(
            ids
              .slice(batch * 5, batch * 5 + 5)
              .map((id) => generationRow({ id, costNanos: 2 * USD })),
          ),
        ),
        other.reclaimInflight(2),
        other.reclaimInflight(2),
      ]);
      const records = await store.listGenerations({ keyId: 'key_account', limit: 100 });
      expect(records).toHaveLength(30);
      expect(await store.fundingFigures('key_account')).toMatchObject({
        reservedNanos: 0,
        pendingNanos: sum(records.map(({ row }) => row.costNanos)),
      });
      expect(await store.listInflight()).toEqual([]);
    });
  });

  describe('reservations', () => {
    it('admits within limit + grace, counting consumption, pending and what is reserved', async () => {
      const store = await open();
      await store.insertKey(
        keyRow({ limitNanos: 10 * USD, graceNanos: 1 * USD, consumptionNanos: 2 * USD }),
      );
      await store.insertGenerations([generationRow({ costNanos: 3 * USD })]);
      expect(await store.reserve(inflightRow({ id: 'r1', reservedNanos: 5 * USD }))).toEqual({
        ok: true,
      });
      const refused = await store.reserve(inflightRow({ id: 'r2', reservedNanos: 1 * USD + 1 }));
      expect(refused).toEqual({
        ok: false,
        figures: {
          limitNanos: 10 * USD,
          graceNanos: 1 * USD,
          consumptionNanos: 2 * USD,
          pendingNanos: 3 * USD,
          reservedNanos: 5 * USD,
          periodBaseNanos: 0,
        },
      });
      expect(await store.reserve(inflightRow({ id: 'r3', reservedNanos: 1 * USD }))).toEqual({
        ok: true,
      });
      expect((await store.listInflight()).map((row) => row.id)).toEqual(['r1', 'r3']);
      expect((await store.listInflight())[0]).toEqual(
        inflightRow({ id: 'r1', reservedNanos: 5 * USD }),
      );
      await expect(
        store.reserve(inflightRow({ id: 'r4', fundingKeyId: 'key_missing' })),
      ).rejects.toThrow();
    });

    it('never admits past limit + grace when 50 reserve at once from two instances', async () => {
      const store = await open();
      const other = await openAnother();
      await store.insertKey(keyRow({ limitNanos: 10 * USD, graceNanos: 2 * USD }));
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          (index % 2 === 0 ? store : other).reserve(
            inflightRow({ id: `r${index}`, reservedNanos: 1 * USD }),
          ),
        ),
      );
      expect(results.filter((result) => result.ok)).toHaveLength(12);
      expect(await store.fundingFigures('key_account')).toMatchObject({ reservedNanos: 12 * USD });
      expect(await other.listInflight()).toHaveLength(12);
    });
  });

  describe('stored responses', () => {
    const stored = (id: string, expiresAt: number) => ({
      id,
      keyId: 'key_child',
      accountId: 'key_account',
      createdAt: 1_000,
      expiresAt,
      context: [{ type: 'message', role: 'user', content: 'Hi', id: 'in_1' }],
      response: { id, object: 'response', output: [{ type: 'message', id: 'msg_1' }] },
    });

    it('keeps a response with its context, and reads it back until it expires', async () => {
      const store = await open();
      await store.responses.put(stored('resp_a', 2_000), 1_000);
      expect(await store.responses.get('resp_a', 1_500)).toEqual(stored('resp_a', 2_000));
      // Another instance on the same store reads it too.
      expect((await (await openAnother()).responses.get('resp_a', 1_500))?.keyId).toBe('key_child');
      expect(await store.responses.get('resp_a', 2_000)).toBeUndefined();
      expect(await store.responses.get('resp_missing', 1_500)).toBeUndefined();
    });

    it('deletes a response once, and drops expired ones as new ones are kept', async () => {
      const store = await open();
      await store.responses.put(stored('resp_b', 2_000), 1_000);
      expect(await store.responses.delete('resp_b')).toBe(true);
      expect(await store.responses.delete('resp_b')).toBe(false);
      await store.responses.put(stored('resp_old', 1_500), 1_000);
      await store.responses.put(stored('resp_new', 9_000), 1_600);
      // The expired row is gone from the table, not only hidden.
      expect(await store.responses.delete('resp_old')).toBe(false);
      expect(await store.responses.get('resp_new', 1_600)).toBeDefined();
    });
  });

  describe('provider stats', () => {
    const minute = (at: number, provider: string, successes: number, timeouts: number) => {
      const row = emptyStats(at, 'sim/chat-standard', provider);
      row.requests = successes + timeouts;
      row.successes = successes;
      row.failures.timeout = timeouts;
      row.latency[bucketOf(120)] = successes;
      row.ttft[bucketOf(40)] = successes;
      row.outputTokens = 100 * successes;
      row.generationMs = 1_000 * successes;
      return row;
    };

    it('adds the rows of two writers into the same minute, and sums buckets of minutes', async () => {
      const store = await open();
      const other = await openAnother();
      // Two instances flush the same minute, at once and again.
      await Promise.all([
        store.providerStats.add([minute(1_000, 'a', 2, 1), minute(1_000, 'b', 1, 0)]),
        other.providerStats.add([minute(1_000, 'a', 3, 0)]),
      ]);
      await other.providerStats.add([minute(1_001, 'a', 1, 1), minute(1_060, 'a', 4, 0)]);
      // Another model's rows are not this one's.
      await store.providerStats.add([{ ...minute(1_000, 'a', 9, 9), model: 'sim/other' }]);

      const buckets = await store.providerStats.series('sim/chat-standard', 1_000, 1_120, 60);
      const a = buckets.filter((row) => row.provider === 'a');
      expect(a.map((row) => row.minute)).toEqual([1_000, 1_060]);
      expect(a[0]).toMatchObject({ requests: 8, successes: 6, outputTokens: 600 });
      expect(a[0]!.failures).toEqual({
        timeout: 2,
        server_error: 0,
        rate_limited: 0,
        connection: 0,
        other: 0,
      });
      expect(a[0]!.latency[bucketOf(120)]).toBe(6);
      expect(a[0]!.ttft[bucketOf(40)]).toBe(6);
      expect(histogramQuantile(a[0]!.latency, 0.5)).toBeGreaterThan(100);
      expect(histogramQuantile(a[0]!.latency, 0.5)).toBeLessThanOrEqual(150);
      expect(a[1]).toMatchObject({ requests: 4, successes: 4 });
      expect(buckets.find((row) => row.provider === 'b')).toMatchObject({ requests: 1 });
      // The window's end is exclusive.
      expect(await other.providerStats.series('sim/chat-standard', 1_000, 1_001, 1)).toEqual(
        expect.arrayContaining([expect.objectContaining({ provider: 'a', requests: 6 })]),
      );
    });

    it('deletes rows older than the retention', async () => {
      const store = await open();
      await store.providerStats.add([minute(100, 'a', 1, 0), minute(200, 'a', 1, 0)]);
      expect(await store.providerStats.prune(150)).toBe(1);
      const left = await store.providerStats.series('sim/chat-standard', 0, 1_000, 1_000);
      expect(left).toHaveLength(1);
      expect(left[0]).toMatchObject({ requests: 1 });
      expect(await store.providerStats.series('sim/chat-standard', 0, 150, 150)).toEqual([]);
    });
  });

  it('answers a ping', async () => {
    const store = await open();
    await expect(store.ping()).resolves.toBeUndefined();
  });
}
