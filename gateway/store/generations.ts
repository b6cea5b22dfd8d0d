/**
 * Generation records: one record, listings and daily activity, read alike on both engines and
 * written once over SqlDatabase. Writing records is each engine's own: SQLite's go through
 * generation-writes.ts, on the record-writing thread when it runs (sqlite-store.ts); PostgreSQL's
 * through postgres-writes.ts, one batch a statement (`postgresInsertGenerations`).
 */
import {
  activityQuery,
  generationListQuery,
  sessionsQuery,
  toPlaceholders,
} from './generation-query';
import { KeyDeltas, type PostgresTransaction, type PostgresWrites } from './postgres-writes';
import { type GenerationRecord, toGenerationRow } from './records';
import type { SqlDatabase } from './sql-database';
import type pg from 'pg';
import type { ActivityRow, GatewayStore, GenerationRow, SessionRow } from './store';

export type GenerationStore = Pick<
  GatewayStore,
  'getGeneration' | 'listGenerations' | 'activity' | 'sessions' | 'insertGenerations'
>;

type SessionRecord = {
  session_id: string;
  requests: number | string;
  started_at: number | string;
  ended_at: number | string;
  prompt_tokens: number | string;
  completion_tokens: number | string;
  cache_read_tokens: number | string;
  cache_hits: number | string;
  cost_nanos: number | string;
};

type ActivityRecord = {
  day: number;
  model: string;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_nanos: number;
};

/** `insertGenerations`: the engine's own way of writing records. */
export function generationStore(
  db: SqlDatabase,
  insertGenerations: GatewayStore['insertGenerations'],
): GenerationStore {
  // PostgreSQL's default collation would not order models by their bytes, as SQLite does.
  const collate = db.engine === 'postgres' ? ' COLLATE "C"' : '';
  return {
    insertGenerations,
    getGeneration: async (id) => {
      const [record] = await db.all<GenerationRecord>('SELECT * FROM generations WHERE id = ?', [
        id,
      ]);
      return record ? toGenerationRow(record) : undefined;
    },
    listGenerations: async (query) => {
      const { sql, values } = toPlaceholders(generationListQuery(query));
      return (await db.all<GenerationRecord>(sql, values)).map((record) => ({
        row: toGenerationRow(record),
        position: { createdAt: record.created_at, seq: record.seq },
      }));
    },
    activity: async (scope, fromDay, toDay) => {
      const { sql, values } = toPlaceholders(activityQuery(scope, fromDay, toDay, collate));
      return (await db.all<ActivityRecord>(sql, values)).map((record): ActivityRow => ({
        day: record.day,
        model: record.model,
        requests: record.requests,
        promptTokens: record.prompt_tokens,
        completionTokens: record.completion_tokens,
        costNanos: record.cost_nanos,
      }));
    },
    sessions: async (scope, from, limit) => {
      const { sql, values } = toPlaceholders(sessionsQuery(scope, from, limit));
      // PostgreSQL's sums and counts of bigint come back as text.
      return (await db.all<SessionRecord>(sql, values)).map((record): SessionRow => ({
        sessionId: record.session_id,
        requests: Number(record.requests),
        startedAt: Math.floor(Number(record.started_at)),
        endedAt: Number(record.ended_at),
        promptTokens: Number(record.prompt_tokens),
        completionTokens: Number(record.completion_tokens),
        cacheReadTokens: Number(record.cache_read_tokens),
        cacheHits: Number(record.cache_hits),
        costNanos: Number(record.cost_nanos),
      }));
    },
  };
}

/**
 * PostgreSQL's `insertGenerations`: one statement per batch (`recordRequests`, one round trip for
 * the answers waiting on it), on `connections`. A record that a reclaim raced
 * (`recordRequestsSql`) is written by the transaction below, which sees the reclaim's closure.
 */
export function postgresInsertGenerations(
  transaction: PostgresTransaction,
  writes: PostgresWrites,
  connections?: pg.Pool,
): GatewayStore['insertGenerations'] {
  const inTransaction = (rows: GenerationRow[]) =>
    transaction(async () => {
      const deltas = new KeyDeltas();
      // The in-flight rows first: a reclaim that got there first already gave them back (and
      // wrote their closures, which these records replace); one that comes later finds them
      // gone.
      const deleted = await writes.deleteInflight(
        rows.map((row) => row.id),
        deltas,
      );
      // A written row that is gone was closed by a reclaim: with a closure, the record replaces
      // it (capped at it); without one (nothing was checkpointed), it charges nothing.
      const lost = new Set(
        rows.filter((row) => row.inflightRowWritten && !deleted.has(row.id)).map((row) => row.id),
      );
      const { corrections, consumed } = await writes.insertRecords(rows, deltas, false, lost);
      await writes.applyDeltas(deltas);
      // Every instance's registry shows consumption (the balance): tell them it moved.
      await writes.notifyKeys(consumed);
      return corrections;
    }, connections);
  return async (rows) => {
    if (rows.length === 0) return [];
    const { corrections, raced } = await writes.recordRequests(rows, connections);
    if (raced.size === 0) return corrections;
    return [...corrections, ...(await inTransaction(rows.filter((row) => raced.has(row.id))))];
  };
}
