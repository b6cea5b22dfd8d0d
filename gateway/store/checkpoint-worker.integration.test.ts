import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempFolder } from '../../testing/gateway-support';
import { createLogger } from '../logger';
import { openSqliteStore } from './sqlite-store';
import { keyRow } from './store-contract';
import type { CheckpointWorker } from './checkpoint-worker';

const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Frames in the write-ahead log now, as a passive checkpoint from another connection sees it. */
function framesInLog(file: string): number {
  const probe = new Database(file);
  try {
    const [result] = probe.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>;
    return result!.log;
  } finally {
    probe.close();
  }
}

/** The keys a copy of the database file holds without its write-ahead log. */
function keysInFileAlone(file: string): string[] {
  const copy = `${file}.alone`;
  fs.copyFileSync(file, copy);
  const database = new Database(copy, { readonly: true });
  try {
    return database.prepare('SELECT id FROM keys').pluck().all() as string[];
  } finally {
    database.close();
    fs.rmSync(copy);
  }
}

describe('the checkpoint thread', () => {
  let folder: string;
  let worker: CheckpointWorker | null = null;
  afterEach(async () => {
    await worker?.stop();
    worker = null;
    fs.rmSync(folder, { recursive: true, force: true });
  });

  async function writeSteadily(checkpointEveryMs: number | null) {
    folder = tempFolder();
    const file = path.join(folder, 'gateway.db');
    const store = openSqliteStore(file, { autoCheckpoint: false });
    if (checkpointEveryMs !== null) {
      worker = store.startCheckpoints!(checkpointEveryMs, createLogger('silent'));
      // Writes begin once the thread runs: a loaded machine takes a while to start one.
      await worker!.ready;
    }
    // 150 commits, each a few pages, a couple of milliseconds apart: a steady writer.
    for (let index = 0; index < 150; index += 1) {
      await store.insertKey(
        keyRow({ id: `key_${index}`, digest: `v1$${index}`, name: `k${index}` }),
      );
      await pause(2);
    }
    const frames = framesInLog(file);
    await store.close();
    return frames;
  }

  it('keeps the write-ahead log short under steady writes: it starts over instead of growing', async () => {
    // Without it (the gateway turns SQLite's own checkpoints off), every commit stays in the log.
    const unfolded = await writeSteadily(null);
    expect(unfolded).toBeGreaterThanOrEqual(150);
    const folded = await writeSteadily(20);
    expect(folded).toBeLessThan(unfolded / 4);
  });

  it('folds what is left when stopped, and ends its thread', async () => {
    folder = tempFolder();
    const file = path.join(folder, 'gateway.db');
    const store = openSqliteStore(file, { autoCheckpoint: false });
    framesInLog(file); // the schema, folded in by hand
    const running = store.startCheckpoints!(60_000, createLogger('silent'))!;
    await store.insertKey(keyRow({ id: 'key_1' }));
    // The database file alone, without its log, does not have the key yet...
    expect(keysInFileAlone(file)).toEqual([]);
    await running.stop();
    // ...and once the thread stopped, it does: what was left in the log was folded in.
    expect(keysInFileAlone(file)).toEqual(['key_1']);
    await store.close();
  });

  it('has nothing to fold for a database in memory', () => {
    folder = tempFolder();
    const store = openSqliteStore(':memory:', { autoCheckpoint: false });
    expect(store.startCheckpoints!(1_000, createLogger('silent'))).toBeNull();
  });
});
