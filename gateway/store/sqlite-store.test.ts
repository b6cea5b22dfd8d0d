import path from 'node:path';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { balanceSchema, generationRecordSchema } from '../../contract/gateway';
import {
  chatBody,
  getWithKey,
  postJson,
  startTestGateway,
  tempFolder,
  testConfig,
  toNanos,
} from '../testing-support';
import { createGateway } from '../app';
import { createLogger } from '../logger';
import { startGateway } from '../index';
import { openSqliteStore } from './sqlite-store';

describe('the SQLite store', () => {
  it('keeps keys and generation records across a close and a reopen of the same file', async () => {
    const folder = tempFolder();
    const config = testConfig({ settleIntervalMs: 600_000 }, folder);
    const first = await startGateway(config, { logger: createLogger('silent') });
    const { key, id } = first.gateway.admin.create({ kind: 'account', limitUsd: 2 });
    const response = await postJson(`${first.url}/v1/chat/completions`, chatBody(), { key });
    expect(response.status).toBe(200);
    const ray = response.headers.get('cf-ray')!;
    const cost = toNanos(((await response.json()) as { usage: { cost: number } }).usage.cost);
    // Closing settles what is pending, so nothing is lost between runs.
    await first.close();

    const second = await startGateway(config, { logger: createLogger('silent') });
    try {
      const record = await getWithKey(`${second.url}/v1/generation?id=${ray}`, key);
      expect(record.status).toBe(200);
      expect(generationRecordSchema.parse(await record.json())).toMatchObject({
        id: ray,
        settlement: 'settled',
      });
      const balance = balanceSchema.parse(
        await (await getWithKey(`${second.url}/v1/balance`, key)).json(),
      );
      expect(toNanos(balance.consumption_usd)).toBe(cost);
      expect(second.gateway.admin.show(id).kind).toBe('account');
    } finally {
      await second.close();
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('rebuilds pending charges from unsettled records after a crash', async () => {
    const folder = tempFolder();
    const config = testConfig({ settleIntervalMs: 600_000 }, folder);
    const gateway = await startTestGateway({
      settleIntervalMs: 600_000,
      databasePath: config.databasePath,
    });
    const { key, id } = gateway.createKey({ kind: 'account', limitUsd: 1 });
    const response = await postJson(`${gateway.url}/v1/chat/completions`, chatBody(), { key });
    const cost = toNanos(((await response.json()) as { usage: { cost: number } }).usage.cost);
    // A second gateway on the same file (as after a crash, before anything settled) sees it pending.
    const reopened = createGateway(config, { logger: createLogger('silent') });
    expect(reopened.parts.ledger.pendingFor(id)).toBe(cost);
    reopened.settlement.stop();
    reopened.close();
    await gateway.stop();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('runs in WAL mode', () => {
    const folder = tempFolder();
    const file = path.join(folder, 'nested', 'gateway.db');
    const store = openSqliteStore(file);
    store.close();
    const database = new Database(file, { readonly: true });
    expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
    database.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('changes its data version when another connection commits', () => {
    const folder = tempFolder();
    const file = path.join(folder, 'gateway.db');
    const gatewaySide = openSqliteStore(file);
    const cliSide = openSqliteStore(file);
    const before = gatewaySide.dataVersion();
    cliSide.insertKey({
      id: 'key_1',
      kind: 'account',
      parentId: null,
      name: 'one',
      digest: 'v1$one',
      masked: 'sk-…',
      limitNanos: 1,
      graceNanos: 0,
      consumptionNanos: 0,
      expiresAt: null,
      disabled: false,
      revokedAt: null,
      createdAt: 1,
    });
    expect(gatewaySide.dataVersion()).not.toBe(before);
    expect(gatewaySide.getKey('key_1')?.name).toBe('one');
    gatewaySide.updateKey('key_1', { disabled: true, expiresAt: 99 });
    expect(cliSide.getKey('key_1')).toMatchObject({ disabled: true, expiresAt: 99 });
    gatewaySide.close();
    cliSide.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('brings a database from before the key console up to date, its history included', () => {
    const folder = tempFolder();
    const file = path.join(folder, 'gateway.db');
    openSqliteStore(file).close();
    // Back to the first migration's schema, with keys and records written by that version.
    const old = new Database(file);
    old.exec(`
      DROP INDEX generations_seq; DROP INDEX generations_by_key; DROP INDEX generations_by_account;
      DROP TABLE generation_days; DROP TABLE key_events; DROP TABLE key_ledger;
      ALTER TABLE generations DROP COLUMN seq; ALTER TABLE generations DROP COLUMN account_id;
      PRAGMA user_version = 1;
      INSERT INTO keys (id, kind, parent_id, name, digest, masked, limit_nanos, created_at) VALUES
        ('key_account', 'account', NULL, 'a', 'v1$a', 'sk-…', 10000000000, 1),
        ('key_child', 'allocated_child', 'key_account', 'c', 'v1$c', 'sk-…', 2000000000, 1),
        ('key_gone', 'allocated_child', 'key_account', 'g', 'v1$g', 'sk-…', 5000000000, 1),
        ('key_shared', 'shared_child', 'key_account', 's', 'v1$s', 'sk-…', 0, 1);
      UPDATE keys SET revoked_at = 5 WHERE id = 'key_gone';
    `);
    const insert = old.prepare(
      `INSERT INTO generations (id, key_id, funding_key_id, model, provider, form, streamed,
         prompt_tokens, completion_tokens, cost_nanos, outcome, created_at, latency_ms)
       VALUES (?, ?, ?, 'sim/chat-standard', 'simulated', 'chat_completions', 0, 10, 2, ?, 'completed', ?, 1)`,
    );
    insert.run('0000000000000001-OLD', 'key_shared', 'key_account', 5, 86_400 * 3 + 10);
    insert.run('0000000000000002-OLD', 'key_account', 'key_account', 7, 86_400 * 3 + 20);
    insert.run('0000000000000003-OLD', 'key_child', 'key_child', 11, 86_400 * 4);
    old.close();

    const store = openSqliteStore(file);
    const listed = store.listGenerations({ accountId: 'key_account', limit: 10 });
    expect(listed.map(({ row }) => row.id)).toEqual([
      '0000000000000003-OLD',
      '0000000000000002-OLD',
      '0000000000000001-OLD',
    ]);
    expect(listed.map(({ position }) => position.seq)).toEqual([3, 2, 1]);
    expect(store.listGenerations({ keyId: 'key_shared', limit: 10 })).toHaveLength(1);
    expect(store.activity({ accountId: 'key_account' }, 3, 4)).toEqual([
      {
        day: 3,
        model: 'sim/chat-standard',
        requests: 2,
        promptTokens: 20,
        completionTokens: 4,
        costNanos: 12,
      },
      {
        day: 4,
        model: 'sim/chat-standard',
        requests: 1,
        promptTokens: 10,
        completionTokens: 2,
        costNanos: 11,
      },
    ]);
    // The ledger opens with what the balance showed: the live allocated child counted as given.
    expect(store.ledgerTotals('key_account')).toEqual({
      rechargeNanos: 12_000_000_000,
      creditNanos: 0,
      allocatedNanos: 2_000_000_000,
    });
    expect(store.ledgerTotals('key_child').allocatedNanos).toBe(2_000_000_000);
    // New records continue the sequence.
    const next = { ...listed[0]!.row, id: '0000000000000004-NEW', createdAt: 86_400 * 4 };
    store.insertGeneration(next);
    expect(store.listGenerations({ keyId: 'key_child', limit: 1 })[0]!.position.seq).toBe(4);
    store.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });
});
