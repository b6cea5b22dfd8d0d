/**
 * Settlement: what records leave pending, per funding key, and moving it into consumption. The
 * reads are written once over SqlDatabase; settling is each engine's own. SQLite settles in one
 * transaction that takes the write lock first (generation-writes.ts), on the record-writing
 * thread when it runs (sqlite-store.ts); PostgreSQL under an advisory lock, one instance at a time
 * (`postgresSettlePending`).
 */
import type { Nanos } from '../shared/money';
import {
  KeyDeltas,
  type PostgresQuery,
  type PostgresTransaction,
  type PostgresWrites,
} from './postgres-writes';
import type { SqlDatabase } from './sql-database';
import type { GatewayStore } from './store';

export type SettlementStore = Pick<
  GatewayStore,
  'pendingFor' | 'pendingByFundingKey' | 'settlePending'
>;

/** `settlePending`: the engine's own way of settling. */
export function settlementStore(
  db: SqlDatabase,
  settlePending: GatewayStore['settlePending'],
): SettlementStore {
  // Said as each engine's partial index of unsettled records says it (migrations), so the
  // planner uses that index.
  const unsettled = db.engine === 'sqlite' ? 'settled = 0' : 'NOT settled';
  return {
    settlePending,
    pendingFor: async (fundingKeyId) => {
      const [row] = await db.all<{ total: number }>(
        `SELECT COALESCE(SUM(cost_nanos), 0) AS total FROM generations
         WHERE ${unsettled} AND funding_key_id = ?`,
        [fundingKeyId],
      );
      return row!.total;
    },
    pendingByFundingKey: async () => {
      const rows = await db.all<{ funding_key_id: string; total: number }>(
        `SELECT funding_key_id, SUM(cost_nanos) AS total FROM generations
         WHERE ${unsettled} GROUP BY funding_key_id`,
      );
      return new Map(rows.map((row) => [row.funding_key_id, row.total]));
    },
  };
}

/** Advisory lock class of settlement (the second key is the schema's hash). */
const SETTLEMENT_LOCK = 0x6777_0002;

/** PostgreSQL's `settlePending`, for the store in `schema`. */
export function postgresSettlePending(
  query: PostgresQuery,
  transaction: PostgresTransaction,
  writes: PostgresWrites,
  schema: string,
): GatewayStore['settlePending'] {
  return (now) =>
    transaction(async () => {
      const { rows: lock } = await query<{ locked: boolean }>(
        'SELECT pg_try_advisory_xact_lock($1, hashtext($2)) AS locked',
        [SETTLEMENT_LOCK, schema],
      );
      // Another instance is settling: what it moves, it moves; this one has nothing to do.
      if (!lock[0]!.locked) return new Map<string, Nanos>();
      const { rows } = await query<{ funding_key_id: string; total: number }>(
        // Locked in id order first, as a batch replacing closures locks them, so the two wait
        // for each other rather than deadlock.
        `WITH moved AS (
         UPDATE generations SET settled = true, settled_at = $1
         WHERE NOT settled
           AND id IN (SELECT id FROM generations WHERE NOT settled ORDER BY id FOR UPDATE)
         RETURNING funding_key_id, cost_nanos
       )
       SELECT funding_key_id, SUM(cost_nanos) AS total FROM moved GROUP BY funding_key_id`,
        [now],
      );
      const deltas = new KeyDeltas();
      for (const row of rows) {
        deltas.add(row.funding_key_id, 'consumption', row.total);
        deltas.add(row.funding_key_id, 'pending', -row.total);
      }
      await writes.applyDeltas(deltas);
      // Every instance's registry shows consumption (the balance): tell them it moved.
      await writes.notifyKeys(rows.map((row) => row.funding_key_id));
      return new Map(rows.map((row) => [row.funding_key_id, row.total]));
    });
}
