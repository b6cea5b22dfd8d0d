/**
 * `GET /v1/generations`: a key's records newest first, in pages that stay stable while new
 * records arrive; an account key also sees its children's, marked; a child sees only its own.
 * The listing reads one index in order, whatever the filters (checked on the query plan).
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import {
  gatewayErrorBodySchema,
  generationListSchema,
  generationRecordSchema,
  type GenerationRecord,
} from '../../contract/gateway';
import type { GenerationQuery, GenerationRow } from '../store/store';
import { generationListQuery, openSqliteStore } from '../store/sqlite-store';
import {
  chatBody,
  expectCfRay,
  getWithKey,
  postJson,
  startTestGateway,
  tempFolder,
  type TestGateway,
} from '../../testing/gateway-support';

let gateway: TestGateway;
let sequence = 0;

beforeAll(async () => {
  gateway = await startTestGateway({ settleIntervalMs: 600_000 });
});
afterAll(async () => {
  await gateway.stop();
});

/** A record as the pipeline writes it, with a fresh trace id. */
function generation(keyId: string, overrides: Partial<GenerationRow> = {}): GenerationRow {
  sequence += 1;
  return {
    id: `${sequence.toString(16).padStart(16, '0')}-TST`,
    keyId,
    fundingKeyId: keyId,
    model: 'sim/chat-standard',
    provider: 'simulated',
    upstreamModel: 'chat-standard',
    form: 'chat_completions',
    streamed: false,
    promptTokens: 10,
    completionTokens: 5,
    costNanos: 1_250,
    finishReason: 'stop',
    outcome: 'completed',
    settled: false,
    createdAt: 1_800_000_000,
    settledAt: null,
    latencyMs: 12.5,
    attempts: [{ provider: 'simulated', status: 200, latencyMs: 1 }],
    usageEstimated: false,
    chargeCapped: false,
    ...overrides,
  };
}

const insert = async (...rows: GenerationRow[]) => {
  // One commit each, in order, as requests ending one after another are recorded.
  for (const row of rows) await gateway.gateway.parts.store.insertGenerations([row]);
  return rows;
};

async function list(key: string, query = '') {
  const response = await getWithKey(`${gateway.url}/v1/generations${query}`, key);
  expectCfRay(response);
  const body: unknown = await response.json();
  if (response.status !== 200) {
    return { status: response.status, error: gatewayErrorBodySchema.parse(body) };
  }
  expect(response.headers.get('cache-control')).toBe('no-store');
  return { status: 200, page: generationListSchema.parse(body) };
}

/** Every record of a listing, page by page, calling `between` after each page. */
async function walk(key: string, query: string, between: () => Promise<void> | void = () => {}) {
  const seen: GenerationRecord[] = [];
  let cursor: string | null = null;
  do {
    const suffix: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const { page } = await list(key, `${query}${suffix}`);
    seen.push(...page!.data);
    cursor = page!.next_cursor;
    expect(page!.has_more).toBe(cursor !== null);
    await between();
  } while (cursor !== null);
  return seen;
}

describe('GET /v1/generations', () => {
  it("lists an account's records and its children's, marked; a child sees only its own", async () => {
    const account = await gateway.createKey({ kind: 'account' });
    const allocated = await gateway.createKey({
      kind: 'allocated_child',
      parentId: account.id,
      name: 'ci',
    });
    const shared = await gateway.createKey({
      kind: 'shared_child',
      parentId: account.id,
      name: 'intern',
    });
    const stranger = await gateway.createKey({ kind: 'account' });
    const [own] = await insert(generation(account.id, { createdAt: 1_800_000_001 }));
    const [byAllocated] = await insert(generation(allocated.id, { createdAt: 1_800_000_002 }));
    const [byShared] = await insert(
      generation(shared.id, { fundingKeyId: account.id, createdAt: 1_800_000_003 }),
    );
    await insert(generation(stranger.id, { createdAt: 1_800_000_004 }));

    const { page } = await list(account.key);
    expect(page!.data.map((record) => record.id)).toEqual([byShared!.id, byAllocated!.id, own!.id]);
    expect(page!.data[0]!.child).toEqual({
      id: shared.id,
      name: 'intern',
      key: `${shared.key.slice(0, 7)}…${shared.key.slice(-4)}`,
    });
    expect(page!.data[1]!.child).toMatchObject({ id: allocated.id, name: 'ci' });
    expect(page!.data[2]!.child).toBeNull();

    // A child: its own records only, never its parent's or its sibling's.
    const fromAllocated = await list(allocated.key);
    expect(fromAllocated.page!.data.map((record) => record.id)).toEqual([byAllocated!.id]);
    expect(fromAllocated.page!.data[0]!.child).toBeNull();
    const fromShared = await list(shared.key);
    expect(fromShared.page!.data.map((record) => record.id)).toEqual([byShared!.id]);
    // Asking for another key's records is a 404, the same for a sibling, a parent and a stranger.
    for (const other of [account.id, allocated.id, stranger.id, 'key_doesnotexist']) {
      const refused = await list(shared.key, `?key_id=${other}`);
      expect(refused.status).toBe(404);
      expect(refused.error!.type).toBe('not_found');
    }
    expect((await list(account.key, `?key_id=${stranger.id}`)).status).toBe(404);

    // An account narrows to one child, or to its own records.
    const narrowed = await list(account.key, `?key_id=${allocated.id}`);
    expect(narrowed.page!.data.map((record) => record.id)).toEqual([byAllocated!.id]);
    const ownOnly = await list(account.key, `?key_id=${account.id}`);
    expect(ownOnly.page!.data.map((record) => record.id)).toEqual([own!.id]);
    const stranger_ = await list(stranger.key);
    expect(stranger_.page!.data).toHaveLength(1);
  });

  it('keeps the history of the keys a key replaced (a rotation by a new key), marked', async () => {
    const account = await gateway.createKey({ kind: 'account' });
    const first = await gateway.createKey({
      kind: 'allocated_child',
      parentId: account.id,
      name: 'ci',
    });
    const second = await gateway.createKey({
      kind: 'allocated_child',
      parentId: account.id,
      name: 'ci',
      replacesId: first.id,
    });
    const third = await gateway.createKey({
      kind: 'allocated_child',
      parentId: account.id,
      name: 'ci',
      replacesId: second.id,
    });
    const sibling = await gateway.createKey({ kind: 'allocated_child', parentId: account.id });
    const now = Math.floor(Date.now() / 1000);
    // Interleaved in time, so pages have to merge the keys' ranges, not follow one another.
    const rows = await insert(
      generation(first.id, { createdAt: now - 50 }),
      generation(second.id, { createdAt: now - 40 }),
      generation(first.id, { createdAt: now - 30 }),
      generation(third.id, { createdAt: now - 20 }),
      generation(second.id, { createdAt: now - 10 }),
      generation(sibling.id, { createdAt: now - 5 }),
    );
    const [a1, b1, a2, c1, b2] = rows.map((row) => row.id);

    const history = await walk(third.key, '?limit=2');
    expect(history.map((record) => record.id)).toEqual([b2, c1, a2, b1, a1]);
    expect(history[0]!.child).toEqual({
      id: second.id,
      name: 'ci',
      key: `${second.key.slice(0, 7)}…${second.key.slice(-4)}`,
    });
    expect(history[1]!.child).toBeNull();
    expect(history[2]!.child).toMatchObject({ id: first.id });
    // Narrowed to one of the keys it replaced, and filtered.
    const narrowed = await list(third.key, `?key_id=${first.id}`);
    expect(narrowed.page!.data.map((record) => record.id)).toEqual([a2, a1]);
    const since = await list(third.key, `?from=${now - 35}`);
    expect(since.page!.data.map((record) => record.id)).toEqual([b2, c1, a2]);
    // One record at a time too; the sibling's is not visible.
    const one = await getWithKey(`${gateway.url}/v1/generation?id=${a1}`, third.key);
    expect(one.status).toBe(200);
    expect((await list(third.key, `?key_id=${sibling.id}`)).status).toBe(404);
    const hidden = await getWithKey(`${gateway.url}/v1/generation?id=${rows[5]!.id}`, third.key);
    expect(hidden.status).toBe(404);
    // The history runs backwards only: an older key does not see what replaced it.
    const older = await walk(second.key, '?limit=200');
    expect(older.map((record) => record.id)).toEqual([b2, a2, b1, a1]);
    expect((await getWithKey(`${gateway.url}/v1/generation?id=${c1}`, first.key)).status).toBe(404);
    // The daily figures count the whole history.
    const activity = (await (
      await getWithKey(`${gateway.url}/v1/activity?days=1`, third.key)
    ).json()) as { totals: { requests: number; cost_usd: number } };
    expect(activity.totals.requests).toBe(5);
    // The account's own view is unchanged: every child, each once.
    expect(await walk(account.key, '?limit=200')).toHaveLength(6);
    // Only a child replaces a key: an account key cannot take on another account's history.
    await expect(gateway.createKey({ kind: 'account', replacesId: account.id })).rejects.toThrow(
      /replaces/,
    );
  });

  it('shows each record exactly as GET /v1/generation does', async () => {
    const account = await gateway.createKey({ kind: 'account' });
    const child = await gateway.createKey({ kind: 'allocated_child', parentId: account.id });
    const response = await postJson(`${gateway.url}/v1/chat/completions`, chatBody(), {
      key: child.key,
    });
    expect(response.status).toBe(200);
    const ray = expectCfRay(response);
    await response.text();
    const one = generationRecordSchema.parse(
      await (await getWithKey(`${gateway.url}/v1/generation?id=${ray}`, account.key)).json(),
    );
    const { page } = await list(account.key);
    expect(page!.data).toEqual([one]);
    expect(one.child).toMatchObject({ id: child.id });
  });

  it('filters by model, outcome and time (from inclusive, to exclusive)', async () => {
    const account = await gateway.createKey({ kind: 'account' });
    const rows = await insert(
      generation(account.id, { createdAt: 1_800_000_100, model: 'sim/echo-mini' }),
      generation(account.id, { createdAt: 1_800_000_200, outcome: 'ended_early' }),
      generation(account.id, { createdAt: 1_800_000_300 }),
      generation(account.id, { createdAt: 1_800_000_400, model: 'sim/echo-mini' }),
    );
    const ids = async (query: string) =>
      (await list(account.key, query)).page!.data.map((record) => record.id);
    expect(await ids('?model=sim/echo-mini')).toEqual([rows[3]!.id, rows[0]!.id]);
    expect(await ids('?outcome=ended_early')).toEqual([rows[1]!.id]);
    expect(await ids('?from=1800000200&to=1800000400')).toEqual([rows[2]!.id, rows[1]!.id]);
    expect(await ids('?model=sim/echo-mini&from=1800000101')).toEqual([rows[3]!.id]);
  });

  it('pages stay stable while new records arrive, in the same second too', async () => {
    const account = await gateway.createKey({ kind: 'account' });
    const child = await gateway.createKey({ kind: 'shared_child', parentId: account.id });
    const second = Math.floor(Date.now() / 1000);
    // Twenty records, many in the same second, by the account and its child.
    const before = await insert(
      ...Array.from({ length: 20 }, (_, index) =>
        generation(index % 3 === 0 ? child.id : account.id, {
          fundingKeyId: account.id,
          createdAt: second - Math.floor(index / 6),
        }),
      ),
    );
    const expected = [...before]
      .map((row, index) => ({ row, index }))
      .sort((a, b) => b.row.createdAt - a.row.createdAt || b.index - a.index)
      .map(({ row }) => row.id);

    const arrived: string[] = [];
    const seen = await walk(account.key, '?limit=3', async () => {
      // New records (same second as the newest, and later) land while the pages are read.
      for (const row of await insert(
        generation(account.id, { createdAt: second }),
        generation(child.id, { fundingKeyId: account.id, createdAt: second + 1 }),
      )) {
        arrived.push(row.id);
      }
    });
    expect(seen.map((record) => record.id)).toEqual(expected);
    expect(new Set(seen.map((record) => record.id)).size).toBe(seen.length);

    // A fresh listing shows the new ones first.
    const fresh = await walk(account.key, '?limit=200');
    expect(fresh).toHaveLength(before.length + arrived.length);
    expect(fresh[0]!.id).toBe(arrived[arrived.length - 1]);
  });

  it.each([
    ['?limit=201', 'limit'],
    ['?limit=0', 'limit'],
    ['?limit=ten', 'limit'],
    ['?outcome=failed', 'outcome'],
    ['?from=yesterday', 'from'],
    ['?cursor=bm90LWEtY3Vyc29y', 'cursor'],
    ['?cursor=%%%', 'cursor'],
  ])('refuses %s with a 400 naming %s', async (query, field) => {
    const account = await gateway.createKey({ kind: 'account' });
    const refused = await list(account.key, query);
    expect(refused.status).toBe(400);
    expect(refused.error!.error).toContain(`'${field}'`);
    expect(refused.error!.type).toBe('invalid_request');
  });

  it('answers 401 without a key', async () => {
    const response = await fetch(`${gateway.url}/v1/generations`);
    expect(response.status).toBe(401);
  });
});

describe('the generations index', () => {
  it('serves every listing shape from one index in order, with 50,000 records in the table', async () => {
    const folder = tempFolder();
    const file = path.join(folder, 'gateway.db');
    const store = openSqliteStore(file);
    // One transaction, the records in order.
    await store.insertGenerations(
      Array.from({ length: 50_000 }, (_, index) =>
        generation(['key_a', 'key_b', 'key_c', 'key_d'][index % 4]!, {
          createdAt: 1_700_000_000 + Math.floor(index / 10),
          model: index % 7 === 0 ? 'sim/echo-mini' : 'sim/chat-standard',
        }),
      ),
    );

    const database = new Database(file, { readonly: true });
    const plan = (query: GenerationQuery) => {
      const { sql, params } = generationListQuery(query);
      return database
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(params)
        .map((row) => (row as { detail: string }).detail)
        .join(' | ');
    };
    const after = { createdAt: 1_700_002_000, seq: 20_000 };
    for (const [query, index] of [
      [{ accountId: 'key_a', limit: 51 }, 'generations_by_account'],
      [{ keyId: 'key_b', limit: 51 }, 'generations_by_key'],
      [{ accountId: 'key_a', after, limit: 51 }, 'generations_by_account'],
      [{ accountId: 'key_a', keyId: 'key_b', after, limit: 51 }, 'generations_by_key'],
      [
        { keyId: 'key_b', from: 1_700_000_100, to: 1_700_003_000, after, limit: 51 },
        'generations_by_key',
      ],
      [
        { accountId: 'key_a', model: 'sim/echo-mini', outcome: 'completed', limit: 51 },
        'generations_by_account',
      ],
    ] as Array<[GenerationQuery, string]>) {
      const detail = plan(query);
      expect(detail, JSON.stringify(query)).toContain(`USING INDEX ${index}`);
      expect(detail, JSON.stringify(query)).not.toContain('TEMP B-TREE');
      expect(detail, JSON.stringify(query)).not.toMatch(/SCAN generations(?! USING)/);
    }

    // A key that replaced others: each key's range read in order and cut at a page, and only
    // those rows (at most a page per key) sorted to merge them, never the table.
    const lineage = plan({
      keyId: 'key_b',
      predecessorIds: ['key_c', 'key_d'],
      after,
      limit: 51,
    }).split(' | ');
    expect(
      lineage.filter((step) =>
        step.startsWith('SEARCH generations USING INDEX generations_by_key'),
      ),
    ).toHaveLength(3);
    expect(lineage.some((step) => /SCAN generations(?! USING)/.test(step))).toBe(false);
    lineage.forEach((step, index) => {
      if (step.includes('TEMP B-TREE')) expect(lineage[index - 1]).toMatch(/^SCAN branch\d$/);
    });
    database.close();

    // And the pages are right: newest first, each page after the last.
    const first = await store.listGenerations({ accountId: 'key_c', limit: 3 });
    expect(first.map(({ row }) => row.createdAt)).toEqual([
      1_700_004_999, 1_700_004_999, 1_700_004_999,
    ]);
    const second = await store.listGenerations({
      accountId: 'key_c',
      limit: 3,
      after: first[2]!.position,
    });
    expect(second.map(({ row }) => row.createdAt)).toEqual([
      1_700_004_998, 1_700_004_998, 1_700_004_997,
    ]);
    expect(second[0]!.position.seq).toBeLessThan(first[2]!.position.seq);
    await store.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });
});
