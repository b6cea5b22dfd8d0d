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

describe('a closing request', () => {
  it('says whether its row was written, so its record knows to find the row or its closure', async () => {
    const store = openSqliteStore(':memory:');
    await store.insertKey(keyRow({ id: 'key_account' }));
    let failing = false;
    const flaky: GatewayStore = {
      ...store,
      openInflight: async (opened) => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        if (failing) throw new Error('connection reset');
        await store.openInflight(opened);
      },
    };
    const rows = new InflightRows(flaky, 'instance-a', 30_000, createLogger('silent'));
    rows.open(inflightRow({ id: 'req_never' }));
    expect(await rows.closing('req_never')).toBe(false);
    rows.open(inflightRow({ id: 'req_written' }));
    await rows.checkpointNow();
    expect(await rows.closing('req_written')).toBe(true);
    // Closing while the checkpoint that inserts its row is on its way: as that insert went.
    rows.open(inflightRow({ id: 'req_inserting' }));
    const inserting = rows.checkpointNow();
    expect(await rows.closing('req_inserting')).toBe(true);
    await inserting;
    failing = true;
    rows.open(inflightRow({ id: 'req_failed' }));
    const failed = rows.checkpointNow().catch(() => undefined);
    expect(await rows.closing('req_failed')).toBe(false);
    await failed;
    await store.close();
  });
});

describe('the lease fence', () => {
  const leaseMs = 3_000;
  const margin = 1_000;
  let store: GatewayStore;
  let clock: number;
  let failing: boolean;
  let rows: InflightRows;

  beforeEach(async () => {
    store = openSqliteStore(':memory:');
    await store.insertKey(keyRow({ id: 'key_account' }));
    clock = 1_000_000;
    failing = false;
    // The store as an instance cut off from its database sees it: renewals do not get through.
    const cutOff: GatewayStore = {
      ...store,
      checkpointInflight: async (...args) => {
        if (failing) throw new Error('connection to the database lost');
        await store.checkpointInflight(...args);
      },
    };
    rows = new InflightRows(cutOff, 'instance-a', leaseMs, createLogger('silent'), {
      fenceMarginMs: margin,
      now: () => clock,
    });
  });
  afterEach(async () => {
    await rows.flush();
    await store.close();
  });

  const admit = (id: string) => {
    rows.open(inflightRow({ id, leaseExpiresAt: rows.leaseFromNow() }));
    rows.track(id, () => delivered(id, 5));
  };

  it('vouches for a request until the margin before the last lease it renewed', async () => {
    admit('req_1');
    clock += leaseMs - margin - 1;
    expect(rows.leaseLost('req_1')).toBe(false);
    // Renewed: vouched for until the margin before the new lease.
    await rows.renewNow();
    clock += leaseMs - margin - 1;
    expect(rows.leaseLost('req_1')).toBe(false);
    // Its renewals stop getting through: lost the margin before the last lease written.
    failing = true;
    await expect(rows.renewNow()).rejects.toThrow('database lost');
    clock += 1;
    expect(rows.leaseLost('req_1')).toBe(true);
    // For good: a renewal that gets through later vouches for nothing (another instance may
    // have closed the row before it).
    failing = false;
    await rows.renewNow();
    expect(rows.leaseLost('req_1')).toBe(true);
  });

  it('does not count a renewal that came back after the fence', async () => {
    admit('req_1');
    const slow = rows.renewNow();
    // The pass was sent in time, but came back after the fence.
    clock += leaseMs - margin;
    await slow;
    expect(rows.leaseLost('req_1')).toBe(true);
  });

  it('loses at once a request whose reservation the budget no longer holds', async () => {
    admit('req_1');
    admit('req_2');
    await rows.renewNow(async () => new Set(['req_2']));
    expect(rows.leaseLost('req_1')).toBe(false);
    expect(rows.leaseLost('req_2')).toBe(true);
  });

  it('stops each lost request once', async () => {
    admit('req_1');
    admit('req_2');
    let stops = 0;
    rows.onLeaseLost('req_1', () => (stops += 1));
    rows.onLeaseLost('req_2', () => (stops += 100));
    rows.stopLost();
    expect(stops).toBe(0);
    clock += leaseMs - margin;
    rows.untrack('req_2');
    rows.stopLost();
    rows.stopLost();
    expect(stops).toBe(1);
  });

  it('renews only the rows of requests it still runs: one it gave up on lapses', async () => {
    admit('req_1');
    admit('req_2');
    await rows.renewNow();
    // req_2 ended, but its row could not be dropped.
    rows.untrack('req_2');
    clock += 500;
    await rows.renewNow();
    expect((await store.listInflight()).map((row) => [row.id, row.leaseExpiresAt])).toEqual([
      ['req_1', clock + leaseMs],
      ['req_2', clock - 500 + leaseMs],
    ]);
  });

  it('never loses a request without a fence (one process alone on its store)', async () => {
    const alone = new InflightRows(store, 'instance-a', leaseMs, createLogger('silent'), {
      now: () => clock,
    });
    alone.open(inflightRow({ id: 'req_1', leaseExpiresAt: clock + leaseMs }));
    clock += 10 * leaseMs;
    expect(alone.leaseLost('req_1')).toBe(false);
  });
});
