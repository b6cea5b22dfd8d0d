/**
 * In-flight rows and admission in the store (`reserve`): a store by data type. The reads are
 * written once over SqlDatabase; the writes are each engine's own, because each keeps its
 * guarantees differently (docs/decisions/0002, 0007, 0009):
 * - SQLite runs every write as one synchronous better-sqlite3 transaction, so nothing interleaves
 *   with it on the event loop, and `reserve`'s guard, increment and row are one atomic step;
 * - PostgreSQL runs batches as single statements, skips rows another transaction holds, renews
 *   leases on a connection of their own, and admits with one guarded row update that writes the
 *   row only when the guard let it through.
 */
import type Database from 'better-sqlite3';
import type pg from 'pg';
import type { Nanos } from '../shared/money';
import { endedEarlyRecord, hasCheckpointedUsage } from './ended-early';
import type { GenerationWrites } from './generation-writes';
import {
  KeyDeltas,
  type PostgresQuery,
  type PostgresTransaction,
  type PostgresWrites,
} from './postgres-writes';
import {
  type FundingRecord,
  type InflightRecord,
  toFundingFigures,
  toInflightRow,
} from './records';
import type { SqlDatabase } from './sql-database';
import type {
  GatewayStore,
  GenerationRow,
  InflightCheckpoint,
  InflightRow,
  ReclaimResult,
} from './store';

export type InflightStore = Pick<
  GatewayStore,
  | 'openInflight'
  | 'checkpointInflight'
  | 'dropInflight'
  | 'reclaimInflight'
  | 'listInflight'
  | 'fundingFigures'
  | 'reserve'
>;

const fundingFiguresSql = `SELECT limit_nanos, grace_nanos, consumption_nanos, pending_nanos,
  reserved_nanos, period_base_nanos FROM keys WHERE id = ?`;

/** What both engines read alike. */
function inflightReads(db: SqlDatabase): Pick<InflightStore, 'listInflight' | 'fundingFigures'> {
  return {
    listInflight: async () =>
      (await db.all<InflightRecord>('SELECT * FROM inflight ORDER BY created_at, id')).map(
        toInflightRow,
      ),
    fundingFigures: async (fundingKeyId, options) => {
      // SQLite's transactions take the whole database's write lock (BEGIN IMMEDIATE) already.
      const lock = options?.forUpdate && db.engine === 'postgres' ? ' FOR UPDATE' : '';
      const [record] = await db.all<FundingRecord>(fundingFiguresSql + lock, [fundingKeyId]);
      return record ? toFundingFigures(record) : undefined;
    },
  };
}

/**
 * `run` is the SQLite store's way of running work (it joins an open transaction, and waits out a
 * busy writer); `writes` its record writes, which dropping and reclaiming rows go through.
 */
export function sqliteInflight(
  database: Database.Database,
  db: SqlDatabase,
  run: <T>(work: () => T) => Promise<T>,
  writes: GenerationWrites,
): InflightStore {
  const statements = {
    insertInflight: database.prepare(
      `INSERT INTO inflight (id, key_id, funding_key_id, model, provider, upstream_model, form,
         streamed, prompt_tokens, completion_tokens, cost_nanos, reserved_nanos, instance_id,
         lease_expires_at, created_at)
       VALUES (@id, @keyId, @fundingKeyId, @model, @provider, @upstreamModel, @form, @streamed,
         @promptTokens, @completionTokens, @costNanos, @reservedNanos, @instanceId,
         @leaseExpiresAt, @createdAt)`,
    ),
    renewLeases: database.prepare<[number, string]>(
      'UPDATE inflight SET lease_expires_at = ? WHERE instance_id = ?',
    ),
    renewLease: database.prepare<[number, string, string]>(
      'UPDATE inflight SET lease_expires_at = ? WHERE instance_id = ? AND id = ?',
    ),
    checkpointInflight: database.prepare(
      `UPDATE inflight SET provider = @provider, upstream_model = @upstreamModel,
         prompt_tokens = @promptTokens, completion_tokens = @completionTokens,
         cost_nanos = @costNanos
       WHERE id = @id`,
    ),
    reclaimInflight: database.prepare<{ now: number; instanceId: string | null }, InflightRecord>(
      `DELETE FROM inflight WHERE lease_expires_at < @now OR instance_id = @instanceId
       RETURNING *`,
    ),
    fundingFigures: database.prepare<[string], FundingRecord>(fundingFiguresSql),
    // The guard and the increment in one statement: admission never overshoots, whoever else
    // (another process on the file) reserves at the same time.
    reserveFunds: database.prepare<{ fundingKeyId: string; nanos: number }>(
      `UPDATE keys SET reserved_nanos = reserved_nanos + @nanos
       WHERE id = @fundingKeyId
         AND consumption_nanos + pending_nanos + reserved_nanos + @nanos
           <= period_base_nanos + limit_nanos + grace_nanos`,
    ),
  };

  const openInflight = database.transaction((rows: InflightRow[]) => {
    for (const row of rows) {
      statements.insertInflight.run({ ...row, streamed: row.streamed ? 1 : 0 });
    }
  });

  const checkpointInflight = database.transaction(
    (
      instanceId: string,
      leaseExpiresAt: number,
      checkpoints: InflightCheckpoint[],
      renew: string[] | undefined,
    ) => {
      if (renew === undefined) statements.renewLeases.run(leaseExpiresAt, instanceId);
      else for (const id of renew) statements.renewLease.run(leaseExpiresAt, instanceId, id);
      for (const checkpoint of checkpoints) statements.checkpointInflight.run(checkpoint);
    },
  );

  const dropInflight = database.transaction((ids: string[]) => {
    const batch = writes.newBatch();
    for (const id of ids) writes.freeInflight(batch, id);
    writes.apply(batch);
  });

  // Read-then-write transactions take the write lock first (`immediate`): another process on the
  // file cannot slip in between, and a busy lock is waited for instead of failing the upgrade.
  const reclaim = database.transaction((nowMs: number, instanceId: string | null) => {
    const closed = statements.reclaimInflight.all({ now: nowMs, instanceId }).map(toInflightRow);
    const batch = writes.newBatch();
    const released = new Map<string, Nanos>();
    const records: GenerationRow[] = [];
    for (const row of closed) {
      if (row.reservedNanos !== 0) {
        writes.release(batch, row.fundingKeyId, row.reservedNanos);
        released.set(row.fundingKeyId, (released.get(row.fundingKeyId) ?? 0) + row.reservedNanos);
      }
      if (!hasCheckpointedUsage(row)) continue;
      const record = endedEarlyRecord(row, nowMs);
      writes.insert(batch, record, true);
      records.push(record);
    }
    writes.apply(batch);
    return { records, released } satisfies ReclaimResult;
  });

  const reserve = database.transaction((row: InflightRow) => {
    const { changes } = statements.reserveFunds.run({
      fundingKeyId: row.fundingKeyId,
      nanos: row.reservedNanos,
    });
    if (changes === 1) {
      statements.insertInflight.run({ ...row, streamed: row.streamed ? 1 : 0 });
      return { ok: true as const };
    }
    const figures = statements.fundingFigures.get(row.fundingKeyId);
    if (!figures) throw new Error(`No funding key ${row.fundingKeyId} to reserve against.`);
    return { ok: false as const, figures: toFundingFigures(figures) };
  });

  return {
    ...inflightReads(db),
    openInflight: (rows) => run(() => openInflight(rows)),
    checkpointInflight: (instanceId, leaseExpiresAt, checkpoints, renew) =>
      run(() => checkpointInflight(instanceId, leaseExpiresAt, checkpoints, renew)),
    dropInflight: (ids) => run(() => dropInflight(ids)),
    reclaimInflight: (nowMs, reclaimOptions) =>
      run(() => reclaim.immediate(nowMs, reclaimOptions?.instanceId ?? null)),
    reserve: (row) => run(() => reserve.immediate(row)),
  };
}

const toInflightRecord = (row: InflightRow): InflightRecord => ({
  id: row.id,
  key_id: row.keyId,
  funding_key_id: row.fundingKeyId,
  model: row.model,
  provider: row.provider,
  upstream_model: row.upstreamModel,
  form: row.form,
  streamed: row.streamed,
  prompt_tokens: row.promptTokens,
  completion_tokens: row.completionTokens,
  cost_nanos: row.costNanos,
  reserved_nanos: row.reservedNanos,
  instance_id: row.instanceId,
  lease_expires_at: row.leaseExpiresAt,
  created_at: row.createdAt,
});

/** The columns of an in-flight row as `jsonb_to_recordset` reads them. */
const inflightColumns = `id text, key_id text, funding_key_id text, model text, provider text,
  upstream_model text, form text, streamed boolean, prompt_tokens bigint, completion_tokens bigint,
  cost_nanos bigint, reserved_nanos bigint, instance_id text, lease_expires_at bigint,
  created_at bigint`;

const inflightColumnList = `id, key_id, funding_key_id, model, provider, upstream_model, form,
  streamed, prompt_tokens, completion_tokens, cost_nanos, reserved_nanos, instance_id,
  lease_expires_at, created_at`;

/**
 * `leasePool`: the connection lease renewals (`openInflight`, `checkpointInflight`) run on. Queued
 * behind a busy gateway's records and admissions in the main pool they would come late, and an
 * instance whose renewals come late stops its own requests (billing/inflight-rows.ts).
 */
export function postgresInflight(
  db: SqlDatabase,
  parts: {
    query: PostgresQuery;
    transaction: PostgresTransaction;
    leasePool: pg.Pool;
    writes: PostgresWrites;
  },
): InflightStore {
  const { query, transaction, leasePool, writes } = parts;
  const reads = inflightReads(db);
  return {
    ...reads,
    openInflight: async (rows) => {
      if (rows.length === 0) return;
      // Part of the lease renewal pass (billing/inflight-rows.ts): on its connection.
      await query(
        `INSERT INTO inflight (${inflightColumnList})
         SELECT ${inflightColumnList} FROM jsonb_to_recordset($1::jsonb) AS r(${inflightColumns})`,
        [JSON.stringify(rows.map(toInflightRecord))],
        undefined,
        leasePool,
      );
    },
    checkpointInflight: (instanceId, leaseExpiresAt, checkpoints, renew) =>
      transaction(async () => {
        // Rows another transaction holds are skipped rather than waited for: a record or a drop
        // removing them (the request is ending), or a reclaim closing them (the lease was lost
        // already). Waiting behind a busy key's records would make the renewal late.
        await query(
          `UPDATE inflight SET lease_expires_at = $2 WHERE id IN (
             SELECT id FROM inflight WHERE instance_id = $1 AND ($3::text[] IS NULL OR id = ANY($3))
             ORDER BY id FOR UPDATE SKIP LOCKED
           )`,
          [instanceId, leaseExpiresAt, renew ?? null],
        );
        if (checkpoints.length === 0) return;
        const input = [...checkpoints]
          .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .map((checkpoint) => ({
            id: checkpoint.id,
            provider: checkpoint.provider,
            upstream_model: checkpoint.upstreamModel,
            prompt_tokens: checkpoint.promptTokens,
            completion_tokens: checkpoint.completionTokens,
            cost_nanos: checkpoint.costNanos,
          }));
        await query(
          `UPDATE inflight SET provider = c.provider, upstream_model = c.upstream_model,
             prompt_tokens = c.prompt_tokens, completion_tokens = c.completion_tokens,
             cost_nanos = c.cost_nanos
           FROM jsonb_to_recordset($1::jsonb) AS c(id text, provider text, upstream_model text,
             prompt_tokens bigint, completion_tokens bigint, cost_nanos bigint)
           WHERE inflight.id = c.id AND inflight.id IN (
             SELECT id FROM inflight WHERE id = ANY($2::text[]) ORDER BY id FOR UPDATE SKIP LOCKED
           )`,
          [JSON.stringify(input), input.map((checkpoint) => checkpoint.id)],
        );
      }, leasePool),
    dropInflight: async (ids) => {
      if (ids.length === 0) return;
      await transaction(async () => {
        const deltas = new KeyDeltas();
        await writes.deleteInflight(ids, deltas);
        await writes.applyDeltas(deltas);
      });
    },
    reclaimInflight: (nowMs, reclaimOptions) =>
      transaction(async () => {
        // Rows another reclaim (or the owner's own write) holds are skipped: each is closed by
        // whoever deletes it, once.
        const { rows } = await query<InflightRecord>(
          `DELETE FROM inflight WHERE id IN (
             SELECT id FROM inflight WHERE lease_expires_at < $1 OR instance_id = $2
             ORDER BY id FOR UPDATE SKIP LOCKED
           )
           RETURNING *`,
          [nowMs, reclaimOptions?.instanceId ?? null],
        );
        const closed = rows.map(toInflightRow);
        const deltas = new KeyDeltas();
        const released = new Map<string, Nanos>();
        for (const row of closed) {
          if (row.reservedNanos === 0) continue;
          deltas.add(row.fundingKeyId, 'reserved', -row.reservedNanos);
          released.set(row.fundingKeyId, (released.get(row.fundingKeyId) ?? 0) + row.reservedNanos);
        }
        const candidates = closed
          .filter(hasCheckpointedUsage)
          .map((row) => endedEarlyRecord(row, nowMs));
        const written =
          candidates.length > 0
            ? (await writes.insertRecords(candidates, deltas, true)).inserted
            : new Set<string>();
        await writes.applyDeltas(deltas);
        return { records: candidates.filter((record) => written.has(record.id)), released };
      }),
    reserve: async (row) => {
      // The guard and the increment are one statement, and the in-flight row is written by the
      // same statement only when the guard let it through.
      const record = toInflightRecord(row);
      const { rowCount } = await query(
        `WITH funded AS (
           UPDATE keys SET reserved_nanos = reserved_nanos + $2::bigint
           WHERE id = $1 AND consumption_nanos + pending_nanos + reserved_nanos + $2::bigint
             <= period_base_nanos + limit_nanos + grace_nanos
           RETURNING id
         )
         INSERT INTO inflight (${inflightColumnList})
         SELECT r.* FROM funded,
           jsonb_to_record($3::jsonb) AS r(${inflightColumns})`,
        [row.fundingKeyId, row.reservedNanos, JSON.stringify(record)],
      );
      if (rowCount === 1) return { ok: true };
      const figures = await reads.fundingFigures(row.fundingKeyId);
      if (!figures) throw new Error(`No funding key ${row.fundingKeyId} to reserve against.`);
      return { ok: false, figures };
    },
  };
}
