/**
 * Availability from real traffic: per minute and (model, provider), provider attempts by outcome,
 * output throughput and two latency histograms. Every column is a counter, so instances sharing a
 * store add into the same row (upsert, `+ excluded`) and any range sums up exactly; percentiles
 * come from the summed histogram. A store by data type, like stored-responses.ts; the store
 * contract suite runs against both engines.
 */
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { withPooledConnection } from './pooled-connection';

/**
 * Upper bounds of the latency buckets, in milliseconds (the last bucket is open). Roughly
 * log-spaced; the migrations' `latency_bNN` and `ttft_bNN` columns are one per bucket.
 */
export const LATENCY_BOUNDS_MS = [
  50, 100, 150, 250, 400, 600, 1_000, 1_500, 2_500, 4_000, 6_000, 10_000, 15_000, 25_000, 60_000,
] as const;
export const BUCKETS = LATENCY_BOUNDS_MS.length + 1;

/** Why a provider attempt failed, as counted. */
export const FAILURE_KINDS = [
  'timeout',
  'server_error',
  'rate_limited',
  'connection',
  'other',
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** One minute (or, read back, one bucket of minutes) of one provider serving one model. */
export type ProviderStatsRow = {
  /** Unix minutes; read back, the first minute of the bucket. */
  minute: number;
  model: string;
  provider: string;
  /** Attempts counted: successes plus every failure. */
  requests: number;
  successes: number;
  failures: Record<FailureKind, number>;
  /** Completed answers' latency (answering attempt's start to end), per bucket of LATENCY_BOUNDS_MS. */
  latency: number[];
  /** Answering attempts' time to their first event, per bucket. */
  ttft: number[];
  /** Output tokens of completed answers, and the milliseconds spent producing them after the first event. */
  outputTokens: number;
  generationMs: number;
};

export interface ProviderStatsStore {
  /** Adds the rows into the stored ones (a new row where none is), in one transaction. */
  add(rows: ProviderStatsRow[]): Promise<void>;
  /**
   * One model's rows summed per provider and per bucket of `bucketMinutes`, for minutes
   * `fromMinute` (a bucket's start) up to `toMinute` exclusive; empty buckets are absent.
   */
  series(
    model: string,
    fromMinute: number,
    toMinute: number,
    bucketMinutes: number,
  ): Promise<ProviderStatsRow[]>;
  /** Deletes rows before `beforeMinute` (retention); how many. */
  prune(beforeMinute: number): Promise<number>;
}

const failureColumns: Record<FailureKind, string> = {
  timeout: 'fail_timeout',
  server_error: 'fail_5xx',
  rate_limited: 'fail_429',
  connection: 'fail_connection',
  other: 'fail_other',
};
const bucketColumns = (prefix: string) =>
  Array.from({ length: BUCKETS }, (_, index) => `${prefix}_b${String(index).padStart(2, '0')}`);
const latencyColumns = bucketColumns('latency');
const ttftColumns = bucketColumns('ttft');
/** Every counter column, in the order `counterValues` gives them. */
const counters = [
  'requests',
  'successes',
  ...FAILURE_KINDS.map((kind) => failureColumns[kind]),
  'output_tokens',
  'generation_ms',
  ...latencyColumns,
  ...ttftColumns,
];

const counterValues = (row: ProviderStatsRow): number[] => [
  row.requests,
  row.successes,
  ...FAILURE_KINDS.map((kind) => row.failures[kind]),
  Math.round(row.outputTokens),
  Math.round(row.generationMs),
  ...Array.from({ length: BUCKETS }, (_, index) => row.latency[index] ?? 0),
  ...Array.from({ length: BUCKETS }, (_, index) => row.ttft[index] ?? 0),
];

/** Both engines take `excluded.` in an upsert; only their placeholders differ. */
const upsertSql = (placeholder: (index: number) => string) =>
  `INSERT INTO provider_stats (minute, model, provider, ${counters.join(', ')})
   VALUES (${[0, 1, 2, ...counters.map((_, index) => index + 3)].map(placeholder).join(', ')})
   ON CONFLICT (minute, model, provider) DO UPDATE SET
   ${counters.map((column) => `${column} = provider_stats.${column} + excluded.${column}`).join(', ')}`;

const seriesSql = (model: string, from: string, to: string, bucket: string) =>
  `SELECT provider, ((minute - ${from}) / ${bucket}) AS slot,
     ${counters.map((column) => `SUM(${column}) AS ${column}`).join(', ')}
   FROM provider_stats WHERE model = ${model} AND minute >= ${from} AND minute < ${to}
   GROUP BY provider, slot ORDER BY provider, slot`;

/** PostgreSQL sums bigints as numeric, which its driver gives as text. */
type SummedRecord = Record<string, string | number> & { provider: string };

const fromSummed = (
  record: SummedRecord,
  model: string,
  fromMinute: number,
  bucketMinutes: number,
): ProviderStatsRow => {
  const value = (column: string) => Number(record[column] ?? 0);
  return {
    minute: fromMinute + value('slot') * bucketMinutes,
    model,
    provider: record.provider,
    requests: value('requests'),
    successes: value('successes'),
    failures: Object.fromEntries(
      FAILURE_KINDS.map((kind) => [kind, value(failureColumns[kind])]),
    ) as Record<FailureKind, number>,
    latency: latencyColumns.map(value),
    ttft: ttftColumns.map(value),
    outputTokens: value('output_tokens'),
    generationMs: value('generation_ms'),
  };
};

/** `run` is the SQLite store's way of running a statement (it waits out a busy writer). */
export function sqliteProviderStats(
  database: Database.Database,
  run: <T>(work: () => T) => Promise<T>,
): ProviderStatsStore {
  const upsert = database.prepare(upsertSql(() => '?'));
  const series = database.prepare<
    { model: string; from: number; to: number; bucket: number },
    SummedRecord
  >(
    // better-sqlite3 binds numbers as reals: the bucket's number must be an integer division.
    seriesSql(
      '@model',
      'CAST(@from AS INTEGER)',
      'CAST(@to AS INTEGER)',
      'CAST(@bucket AS INTEGER)',
    ),
  );
  const prune = database.prepare('DELETE FROM provider_stats WHERE minute < ?');
  const add = database.transaction((rows: ProviderStatsRow[]) => {
    for (const row of rows) upsert.run(row.minute, row.model, row.provider, ...counterValues(row));
  });
  return {
    add: (rows) => run(() => add(rows)),
    series: (model, fromMinute, toMinute, bucketMinutes) =>
      run(() =>
        series
          .all({ model, from: fromMinute, to: toMinute, bucket: bucketMinutes })
          .map((record) => fromSummed(record, model, fromMinute, bucketMinutes)),
      ),
    prune: (beforeMinute) => run(() => prune.run(beforeMinute).changes),
  };
}

export function postgresProviderStats(pool: pg.Pool): ProviderStatsStore {
  const upsert = upsertSql((index) => `$${index + 1}`);
  return {
    async add(rows) {
      if (rows.length === 0) return;
      // Rows in one order, so two instances' batches lock them alike and never deadlock.
      const sorted = [...rows].sort(
        (a, b) =>
          a.minute - b.minute ||
          a.model.localeCompare(b.model) ||
          a.provider.localeCompare(b.provider),
      );
      await withPooledConnection(pool, async (client, drop) => {
        try {
          await client.query('BEGIN');
          for (const row of sorted) {
            await client.query(upsert, [
              row.minute,
              row.model,
              row.provider,
              ...counterValues(row),
            ]);
          }
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(drop);
          throw error;
        }
      });
    },
    async series(model, fromMinute, toMinute, bucketMinutes) {
      const { rows } = await pool.query<SummedRecord>(
        seriesSql('$1', '$2::bigint', '$3::bigint', '$4::bigint'),
        [model, fromMinute, toMinute, bucketMinutes],
      );
      return rows.map((record) => fromSummed(record, model, fromMinute, bucketMinutes));
    },
    async prune(beforeMinute) {
      const result = await pool.query('DELETE FROM provider_stats WHERE minute < $1', [
        beforeMinute,
      ]);
      return result.rowCount ?? 0;
    },
  };
}

/** An empty row, to add into. */
export const emptyStats = (minute: number, model: string, provider: string): ProviderStatsRow => ({
  minute,
  model,
  provider,
  requests: 0,
  successes: 0,
  failures: { timeout: 0, server_error: 0, rate_limited: 0, connection: 0, other: 0 },
  latency: new Array<number>(BUCKETS).fill(0),
  ttft: new Array<number>(BUCKETS).fill(0),
  outputTokens: 0,
  generationMs: 0,
});

/** The bucket a latency falls in. */
export const bucketOf = (milliseconds: number): number => {
  const index = LATENCY_BOUNDS_MS.findIndex((bound) => milliseconds <= bound);
  return index === -1 ? BUCKETS - 1 : index;
};

/**
 * The `q` quantile of a histogram, interpolated within its bucket (the open last bucket gives its
 * lower bound); null without samples.
 */
export function histogramQuantile(counts: readonly number[], q: number): number | null {
  const total = counts.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = q * total;
  let below = 0;
  for (let index = 0; index < counts.length; index += 1) {
    const count = counts[index] ?? 0;
    if (count > 0 && below + count >= rank) {
      const lower = index === 0 ? 0 : LATENCY_BOUNDS_MS[index - 1]!;
      const upper = LATENCY_BOUNDS_MS[index];
      if (upper === undefined) return lower;
      return Math.round(lower + ((upper - lower) * (rank - below)) / count);
    }
    below += count;
  }
  return null;
}
