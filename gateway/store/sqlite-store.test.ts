import path from 'node:path';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { balanceSchema, generationRecordSchema } from '../../contract/gateway';
import { chatBody, getWithKey, postJson, startTestGateway, tempFolder, testConfig, toNanos } from '../testing-support';
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
      expect(generationRecordSchema.parse(await record.json())).toMatchObject({ id: ray, settlement: 'settled' });
      const balance = balanceSchema.parse(await (await getWithKey(`${second.url}/v1/balance`, key)).json());
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
    const gateway = await startTestGateway({ settleIntervalMs: 600_000, databasePath: config.databasePath });
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
});
