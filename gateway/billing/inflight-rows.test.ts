import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { openSqliteStore } from '../store/sqlite-store';
import { generationRow, inflightRow, keyRow } from '../store/store-contract';
import type { GatewayStore, InflightCheckpoint } from '../store/store';
import { InflightRows } from './inflight-rows';

const delivered = (id: string, completionTokens: number): InflightCheckpoint => ({
  id,
  provider: 'simulated',
  upstreamModel: 'chat-standard',
  promptTokens: 10,
  completionTokens,
  costNanos: 100 + completionTokens,
});

describe('in-flight rows', () => {
  let store: GatewayStore;
  let rows: InflightRows;
  beforeEach(async () => {
    store = openSqliteStore(':memory:');
    await store.insertKey(keyRow({ id: 'key_account' }));
    rows = new InflightRows(store, 'instance-a', 30_000, createLogger('silent'));
  });
  afterEach(async () => {
    await rows.flush();
    await store.close();
  });

  it('writes a running request with the next checkpoint, carrying what it has delivered', async () => {
    rows.open(inflightRow({ id: 'req_1' }));
    rows.track('req_1', () => delivered('req_1', 7));
    expect(await store.listInflight()).toEqual([]);
    await rows.checkpointNow();
    expect(await store.listInflight()).toMatchObject([
      { id: 'req_1', promptTokens: 10, completionTokens: 7, costNanos: 107 },
    ]);
    // Later checkpoints update the same row.
    rows.track('req_1', () => delivered('req_1', 9));
    await rows.checkpointNow();
    expect(await store.listInflight()).toMatchObject([{ id: 'req_1', completionTokens: 9 }]);
  });

  it('writes nothing for a request that ended before the checkpoint', async () => {
    rows.open(inflightRow({ id: 'req_1' }));
    await rows.drop('req_1');
    rows.open(inflightRow({ id: 'req_2' }));
    await rows.closing('req_2');
    await rows.checkpointNow();
    expect(await store.listInflight()).toEqual([]);
  });

  it('removes a written row when the request ends without a record', async () => {
    rows.open(inflightRow({ id: 'req_1' }));
    await rows.checkpointNow();
    await rows.drop('req_1');
    expect(await store.listInflight()).toEqual([]);
  });

  it('lets a record written during the checkpoint that inserts its row remove that row', async () => {
    // A store that takes its time to insert (PostgreSQL's round trip).
    const slow: GatewayStore = {
      ...store,
      openInflight: async (opened) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        await store.openInflight(opened);
      },
    };
    rows = new InflightRows(slow, 'instance-a', 30_000, createLogger('silent'));
    rows.open(inflightRow({ id: 'req_1' }));
    rows.track('req_1', () => delivered('req_1', 3));
    const checkpoint = rows.checkpointNow();
    // The record's transaction removes the row: it must run after the row's insert.
    await rows.closing('req_1');
    await store.insertGenerations([generationRow({ id: 'req_1' })]);
    await checkpoint;
    expect(await store.listInflight()).toEqual([]);
    expect(await store.getGeneration('req_1')).toMatchObject({ id: 'req_1' });
  });
});
