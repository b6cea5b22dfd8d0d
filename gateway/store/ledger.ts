/**
 * The ledger of every key's money (docs/keys-and-money.md): a store by data type, written once
 * over SqlDatabase for both engines.
 */
import type { SqlDatabase } from './sql-database';
import type { GatewayStore, LedgerTotals } from './store';

export type LedgerStore = Pick<GatewayStore, 'insertLedgerEntry' | 'ledgerTotals'>;

export function ledgerStore(db: SqlDatabase): LedgerStore {
  return {
    insertLedgerEntry: async (entry) => {
      await db.run(
        `INSERT INTO key_ledger (key_id, entry, recharge_nanos, credit_nanos, allocated_nanos,
           limit_nanos, counterpart_id, note, actor, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          entry.keyId,
          entry.entry,
          entry.rechargeNanos,
          entry.creditNanos,
          entry.allocatedNanos,
          entry.limitNanos,
          entry.counterpartId,
          entry.note,
          entry.actor,
          entry.createdAt,
        ],
      );
    },
    ledgerTotals: async (keyId) => {
      // Quoted, the names keep their case on both engines.
      const [totals] = await db.all<LedgerTotals>(
        `SELECT COALESCE(SUM(recharge_nanos), 0) AS "rechargeNanos",
           COALESCE(SUM(credit_nanos), 0) AS "creditNanos",
           COALESCE(SUM(allocated_nanos), 0) AS "allocatedNanos"
         FROM key_ledger WHERE key_id = ?`,
        [keyId],
      );
      return totals!;
    },
  };
}
