/**
 * How the SQLite store writes generation records: each record, its day's totals, the in-flight
 * row it replaces and what that moves on its funding key's pending and reserved counters (a
 * request's own record replaces the one written when its lease ran out: `RecordCorrection`); and
 * settlement, which moves every unsettled record's cost from pending into consumption.
 *
 * Both the main thread and the record-writing thread (generation-writer-worker.ts) run
 * `createGenerationWrites`, so they write with the same statements.
 */
import type Database from 'better-sqlite3';
import type { Nanos } from '../shared/money';
import type { ActivityRow, GenerationRow, RecordCorrection } from './store';
import { recordColumns, replacedColumns, toColumns } from './generation-columns';

/** What a batch of writes moves: per funding key, and per key, day and model. */
export type InsertBatch = {
  keys: Map<string, { consumption: Nanos; pending: Nanos; reserved: Nanos }>;
  /** Keyed by key, day and model. */
  days: Map<string, ActivityRow & { keyId: string }>;
};

export type GenerationWrites = {
  /**
   * Writes the records in one transaction, each once: a record already stored is skipped, unless
   * it was written when the request's lease ran out, which the request's own record replaces.
   * Returns what each replacement moved.
   */
  insertGenerations(rows: GenerationRow[]): RecordCorrection[];
  newBatch(): InsertBatch;
  /**
   * Writes one record unless already stored; its unsettled cost becomes its funder's pending.
   * `closedByLease`: the record closes an in-flight row whose lease ran out, and a record the
   * request writes itself later replaces it. A record already stored that was closed by lease is
   * replaced by this one (unless this one is closed by lease too): what that moved is returned.
   * `lost`: the request's row was reclaimed with nothing checkpointed; a new record costs nothing.
   */
  insert(
    batch: InsertBatch,
    row: GenerationRow,
    closedByLease?: boolean,
    lost?: boolean,
  ): RecordCorrection | null;
  /** Removes a request's in-flight row, if written, and gives back what it reserved. */
  freeInflight(batch: InsertBatch, id: string): boolean;
  /** Gives back a reservation whose row is already gone. */
  release(batch: InsertBatch, fundingKeyId: string, nanos: Nanos): void;
  /** Writes what the batch moved: one update per funding key, one upsert per day total. */
  apply(batch: InsertBatch): void;
  /**
   * Marks every unsettled record settled at `now` and moves its cost from its funder's pending
   * into consumption, in one transaction that takes the write lock first; returns what moved.
   */
  settle(now: number): Map<string, Nanos>;
  /** Each funding key's unsettled total. */
  pendingTotals(): Map<string, Nanos>;
};

/** Bytes the write-ahead log is cut back to when it starts over, on every connection that writes. */
export const JOURNAL_SIZE_LIMIT = 32 * 1024 * 1024;

export function createGenerationWrites(database: Database.Database): GenerationWrites {
  const SECONDS_PER_DAY = 86_400;
  const statements = {
    // `account_id`: the key's parent, or the key itself; `seq`: one more than the last written.
    // A record already stored is skipped (a retried batch), so nothing is charged twice; one
    // written when its request's lease ran out is replaced instead (`replaceClosedByLease`).
    insertGeneration: database.prepare(
      `INSERT INTO generations (${recordColumns.join(', ')}, closed_by_lease, account_id, seq)
       VALUES (${recordColumns.map((column) => `@${column}`).join(', ')}, @closed_by_lease,
         COALESCE((SELECT parent_id FROM keys WHERE id = @key_id), @key_id),
         (SELECT IFNULL(MAX(seq), 0) + 1 FROM generations))
       ON CONFLICT (id) DO NOTHING`,
    ),
    closedByLease: database.prepare(
      `SELECT key_id, funding_key_id, model, created_at, prompt_tokens, completion_tokens,
         cost_nanos, settled
       FROM generations WHERE id = ? AND closed_by_lease = 1`,
    ),
    // The record keeps its place (time and order) in the listings, and is unsettled again: the
    // whole corrected cost is pending until the next settlement.
    replaceClosedByLease: database.prepare(
      `UPDATE generations SET ${replacedColumns.map((column) => `${column} = @${column}`).join(', ')},
         settled = 0, settled_at = NULL, closed_by_lease = 0
       WHERE id = @id`,
    ),
    addToDay: database.prepare(
      `INSERT INTO generation_days (key_id, account_id, day, model, requests, prompt_tokens,
         completion_tokens, cost_nanos)
       VALUES (@keyId, COALESCE((SELECT parent_id FROM keys WHERE id = @keyId), @keyId), @day,
         @model, @requests, @promptTokens, @completionTokens, @costNanos)
       ON CONFLICT (key_id, day, model) DO UPDATE SET
         requests = requests + excluded.requests,
         prompt_tokens = prompt_tokens + excluded.prompt_tokens,
         completion_tokens = completion_tokens + excluded.completion_tokens,
         cost_nanos = cost_nanos + excluded.cost_nanos`,
    ),
    // Only these two columns: a change to any other column of a key moves `keys_version`, which
    // makes every running gateway read its keys again (migration 0007).
    moveOnKey: database.prepare(
      `UPDATE keys SET pending_nanos = pending_nanos + ?, reserved_nanos = reserved_nanos + ?
       WHERE id = ?`,
    ),
    // A charge of a budget period that ended while the request ran: it joins the new period's
    // base, so the new period does not pay for it (rare: near a period's end only).
    chargeEarlierPeriod: database.prepare(
      `UPDATE keys SET period_base_nanos = period_base_nanos + ?
       WHERE id = ? AND period_started_at > ?`,
    ),
    // Rare (a settled record replaced): every gateway then reads the new consumption.
    consumeOnKey: database.prepare(
      'UPDATE keys SET consumption_nanos = consumption_nanos + ? WHERE id = ?',
    ),
    pending: database.prepare(
      `SELECT funding_key_id, SUM(cost_nanos) AS total FROM generations
       WHERE settled = 0 GROUP BY funding_key_id`,
    ),
    markSettled: database.prepare(
      'UPDATE generations SET settled = 1, settled_at = ? WHERE settled = 0',
    ),
    // Moves `keys_version`: other gateways on the file read the new consumption.
    settleOnKey: database.prepare(
      `UPDATE keys SET consumption_nanos = consumption_nanos + ?, pending_nanos = pending_nanos - ?
       WHERE id = ?`,
    ),
    // The row's own funding key and reservation: what the request took is what is given back.
    deleteInflight: database.prepare(
      'DELETE FROM inflight WHERE id = ? RETURNING funding_key_id, reserved_nanos',
    ),
  };

  const move = (
    batch: InsertBatch,
    keyId: string,
    pending: Nanos,
    reserved: Nanos,
    consumption: Nanos = 0,
  ) => {
    if (pending === 0 && reserved === 0 && consumption === 0) return;
    const moved = batch.keys.get(keyId);
    if (moved) {
      moved.consumption += consumption;
      moved.pending += pending;
      moved.reserved += reserved;
    } else {
      batch.keys.set(keyId, { consumption, pending, reserved });
    }
  };

  const addDayTotal = (batch: InsertBatch, total: ActivityRow & { keyId: string }) => {
    // NUL occurs in no key id and no model id, so the slot names one key, day and model.
    const slot = `${total.keyId}\u0000${total.day}\u0000${total.model}`;
    const sum = batch.days.get(slot);
    if (!sum) {
      batch.days.set(slot, total);
      return;
    }
    sum.requests += total.requests;
    sum.promptTokens += total.promptTokens;
    sum.completionTokens += total.completionTokens;
    sum.costNanos += total.costNanos;
  };

  /**
   * The request finished after all, after its in-flight row was closed by lease: its own record
   * replaces that one, and the difference is given back, never charged on top (the closure gave
   * the reservation back, and others may have spent it: the record's cost is capped at the
   * closure's). A settled closure is unsettled: its cost leaves consumption, and the whole new
   * cost is pending.
   */
  const replaceClosedByLease = (
    batch: InsertBatch,
    recorded: GenerationRow,
  ): RecordCorrection | null => {
    const stored = statements.closedByLease.get(recorded.id) as
      | {
          key_id: string;
          funding_key_id: string;
          model: string;
          created_at: number;
          prompt_tokens: number;
          completion_tokens: number;
          cost_nanos: number;
          settled: number;
        }
      | undefined;
    if (!stored) return null;
    const capped = recorded.costNanos > stored.cost_nanos;
    const row = capped
      ? { ...recorded, costNanos: stored.cost_nanos, chargeCapped: true }
      : recorded;
    statements.replaceClosedByLease.run(toColumns(row, 'sqlite'));
    const wasSettled = stored.settled === 1;
    const pendingNanos = row.costNanos - (wasSettled ? 0 : stored.cost_nanos);
    move(batch, stored.funding_key_id, pendingNanos, 0, wasSettled ? -stored.cost_nanos : 0);
    addDayTotal(batch, {
      keyId: stored.key_id,
      day: Math.floor(stored.created_at / SECONDS_PER_DAY),
      model: stored.model,
      requests: 0,
      promptTokens: row.promptTokens - stored.prompt_tokens,
      completionTokens: row.completionTokens - stored.completion_tokens,
      costNanos: row.costNanos - stored.cost_nanos,
    });
    return { id: row.id, pendingNanos, chargedNanos: row.costNanos - stored.cost_nanos };
  };

  const newBatch = (): InsertBatch => ({ keys: new Map(), days: new Map() });

  const insert = (
    batch: InsertBatch,
    recorded: GenerationRow,
    closedByLease = false,
    lost = false,
  ) => {
    // Its row was reclaimed with nothing checkpointed, its reservation given back: a new record
    // charges nothing (a closure, if there is one, is replaced capped at its own cost).
    const row =
      lost && recorded.costNanos > 0 ? { ...recorded, costNanos: 0, chargeCapped: true } : recorded;
    const { changes } = statements.insertGeneration.run({
      ...toColumns(row, 'sqlite'),
      closed_by_lease: closedByLease ? 1 : 0,
    });
    if (changes === 0) return closedByLease ? null : replaceClosedByLease(batch, recorded);
    if (!row.settled) move(batch, row.fundingKeyId, row.costNanos, 0);
    if (row.admittedPeriodStart !== undefined && row.costNanos > 0) {
      statements.chargeEarlierPeriod.run(row.costNanos, row.fundingKeyId, row.admittedPeriodStart);
    }
    addDayTotal(batch, {
      keyId: row.keyId,
      day: Math.floor(row.createdAt / SECONDS_PER_DAY),
      model: row.model,
      requests: 1,
      promptTokens: row.promptTokens,
      completionTokens: row.completionTokens,
      costNanos: row.costNanos,
    });
    // Charged nothing, whatever it cost: the budget must count nothing either.
    return lost ? { id: row.id, pendingNanos: 0, chargedNanos: 0 } : null;
  };

  /** Deletes the in-flight row, giving back what it held; says whether there was one. */
  const freeInflight = (batch: InsertBatch, id: string): boolean => {
    const freed = statements.deleteInflight.get(id) as
      { funding_key_id: string; reserved_nanos: number } | undefined;
    if (freed) move(batch, freed.funding_key_id, 0, -freed.reserved_nanos);
    return freed !== undefined;
  };

  const release = (batch: InsertBatch, fundingKeyId: string, nanos: Nanos) =>
    move(batch, fundingKeyId, 0, -nanos);

  const apply = (batch: InsertBatch) => {
    for (const total of batch.days.values()) statements.addToDay.run(total);
    for (const [keyId, moved] of batch.keys) {
      if (moved.pending !== 0 || moved.reserved !== 0) {
        statements.moveOnKey.run(moved.pending, moved.reserved, keyId);
      }
      if (moved.consumption !== 0) statements.consumeOnKey.run(moved.consumption, keyId);
    }
  };

  const insertGenerations = database.transaction((rows: GenerationRow[]) => {
    const batch = newBatch();
    const corrections: RecordCorrection[] = [];
    for (const row of rows) {
      const freed = freeInflight(batch, row.id);
      const correction = insert(batch, row, false, row.inflightRowWritten === true && !freed);
      if (correction) corrections.push(correction);
    }
    apply(batch);
    return corrections;
  });

  // Read-then-write: the write lock is taken first (`immediate`), so another process on the
  // file cannot slip a record in between the sums and the marking.
  const pendingTotals = () => {
    const rows = statements.pending.all() as Array<{ funding_key_id: string; total: number }>;
    return new Map(rows.map((row) => [row.funding_key_id, row.total]));
  };

  const settle = database.transaction((now: number) => {
    const moved = pendingTotals();
    for (const [keyId, nanos] of moved) {
      // Free records move nothing, and an update would make every gateway read its keys again.
      if (nanos !== 0) statements.settleOnKey.run(nanos, nanos, keyId);
    }
    statements.markSettled.run(now);
    return moved;
  });

  return {
    insertGenerations,
    newBatch,
    insert,
    freeInflight,
    release,
    apply,
    settle: (now) => settle.immediate(now),
    pendingTotals,
  };
}
