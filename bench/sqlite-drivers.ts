/**
 * better-sqlite3 against Node's built-in `node:sqlite` on the store's hot path, same SQL, same
 * schema (the real migrations), a file in WAL mode: the record-writing thread's inserts (one
 * transaction per batch, synced as GATEWAY_SQLITE_SYNC says), a record looked up by id (the
 * generation route) and a key's latest 50 (the activity list). Prints rows or queries per second,
 * the median of five rounds. Decides nothing by itself: docs/performance.md keeps the figures.
 *
 * Usage: npx tsx bench/sqlite-drivers.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DatabaseSync } from 'node:sqlite';
import BetterSqlite from 'better-sqlite3';
import { migrateSqlite } from '../gateway/store/migrate';

type Row = Record<string, string | number | null>;
/** The little both drivers share: run SQL, and prepared statements that run, get and list. */
type Driver = {
  exec(sql: string): void;
  prepare(sql: string): {
    run(parameters: Row): unknown;
    get(parameters: Row): unknown;
    all(parameters: Row): unknown[];
  };
  close(): void;
};

const open: Record<string, (file: string) => Driver> = {
  'better-sqlite3': (file) => new BetterSqlite(file, { fileMustExist: true }),
  'node:sqlite': (file) => new DatabaseSync(file),
};

const keys = Array.from({ length: 50 }, (_, index) => `key-${index}`);
let sequence = 0;
function record(): Row {
  sequence += 1;
  const key = keys[sequence % keys.length]!;
  return {
    id: `gen-${sequence.toString(36).padStart(12, '0')}`,
    key_id: key,
    funding_key_id: key,
    account_id: key,
    model: 'sim/chat-standard',
    upstream_model: 'chat-standard',
    provider: 'sim',
    form: 'chat_completions',
    streamed: sequence % 2,
    prompt_tokens: 812,
    completion_tokens: 256,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cache_write_1h_tokens: 0,
    reasoning_tokens: 0,
    cost_nanos: 1_234_567,
    finish_reason: 'stop',
    outcome: 'completed',
    created_at: 1_764_633_600_000 + sequence,
    latency_ms: 412.5,
    attempts: '[{"provider":"sim","status":200}]',
    translation: null,
    seq: sequence,
  };
}
const columns = Object.keys(record());
const insertSql = `INSERT INTO generations (${columns.join(', ')}) VALUES (${columns.map((name) => `@${name}`).join(', ')})`;

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function measure(name: string, synchronous: 'FULL' | 'NORMAL') {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-drivers-'));
  const file = path.join(folder, 'gateway.db');
  const schema = new BetterSqlite(file);
  schema.pragma('journal_mode = WAL');
  migrateSqlite(schema);
  schema.close();
  const database = open[name]!(file);
  database.exec(`PRAGMA synchronous = ${synchronous}; PRAGMA foreign_keys = ON;`);
  const insert = database.prepare(insertSql);
  const begin = database.prepare('BEGIN IMMEDIATE');
  const commit = database.prepare('COMMIT');
  const byId = database.prepare('SELECT * FROM generations WHERE id = @id');
  const latest = database.prepare(
    'SELECT * FROM generations WHERE key_id = @key ORDER BY created_at DESC, seq DESC LIMIT 50',
  );
  const results: Record<string, number[]> = {};
  const time = (label: string, count: number, body: () => void) => {
    const started = performance.now();
    body();
    (results[label] ??= []).push(count / ((performance.now() - started) / 1000));
  };
  for (let round = 0; round < 5; round += 1) {
    for (const batch of [1, 20]) {
      const batches = batch === 1 ? 400 : 200;
      time(`insert, ${batch} a transaction (rows/s)`, batches * batch, () => {
        for (let index = 0; index < batches; index += 1) {
          begin.run({});
          for (let row = 0; row < batch; row += 1) insert.run(record());
          commit.run({});
        }
      });
    }
    const ids = Array.from({ length: 20_000 }, (_, index) => ({
      id: `gen-${(1 + ((index * 7919) % sequence)).toString(36).padStart(12, '0')}`,
    }));
    time('record by id (queries/s)', ids.length, () => {
      for (const parameters of ids) if (!byId.get(parameters)) throw new Error('missing');
    });
    time("key's latest 50 (queries/s)", 2_000, () => {
      for (let index = 0; index < 2_000; index += 1)
        latest.all({ key: keys[index % keys.length]! });
    });
  }
  database.close();
  fs.rmSync(folder, { recursive: true, force: true });
  return Object.fromEntries(
    Object.entries(results).map(([label, values]) => [label, Math.round(median(values))]),
  );
}

const table: Record<string, Record<string, number>> = {};
for (const synchronous of ['FULL', 'NORMAL'] as const) {
  for (const name of Object.keys(open)) {
    sequence = 0;
    for (const [label, value] of Object.entries(measure(name, synchronous))) {
      (table[`${label}, synchronous ${synchronous}`] ??= {})[name] = value;
    }
  }
}
process.stdout.write(
  `Node ${process.version}, SQLite ${String((new DatabaseSync(':memory:').prepare('SELECT sqlite_version() AS v').get() as { v: string }).v)} (node:sqlite)\n`,
);
console.table(table);
