/**
 * How the PostgreSQL store writes generation records and moves money between a key's counters:
 * the statements that records, in-flight rows and settlement share (the counterpart of SQLite's
 * generation-writes.ts). Every one runs on the caller's transaction when there is one.
 */
import type pg from 'pg';
import type { Nanos } from '../shared/money';
import { columnDefinitions, recordColumns, replacedColumns, toColumns } from './generation-columns';
import type { GenerationRow, RecordCorrection } from './store';

/**
 * The PostgreSQL store's way of running a statement: on the open transaction's connection, or on
 * one of `connections` (the main pool unless given). A `name`d one is prepared once per connection.
 */
export type PostgresQuery = <R extends pg.QueryResultRow = pg.QueryResultRow>(
  text: string,
  values?: unknown[],
  name?: string,
  connections?: pg.Pool,
) => Promise<pg.QueryResult<R>>;

/** Runs `work` in one transaction on a connection of `connections`, or joins the open one. */
export type PostgresTransaction = <T>(work: () => Promise<T>, connections?: pg.Pool) => Promise<T>;

/** Columns a replacing record writes other than as given: capped at what its closure charged. */
const replacing: Record<string, string> = {
  cost_nanos: 'LEAST(input.cost_nanos, generations.cost_nanos)',
  charge_capped: 'input.charge_capped OR input.cost_nanos > generations.cost_nanos',
};

/** Columns a new record writes other than as given: a `lost` one charges nothing. */
const inserting: Record<string, string> = {
  cost_nanos: 'CASE WHEN input.lost THEN 0 ELSE input.cost_nanos END',
  charge_capped: 'input.charge_capped OR (input.lost AND input.cost_nanos > 0)',
};

/**
 * The CTEs that write a batch of records (the CTE `input`, one row per record) with their accounts
 * and day totals, as part of one statement; `seq` comes from the identity, in the order given. A
 * record already stored is skipped (a retried batch), unless it was written when the request's
 * lease ran out (a closure) and this one is the request's own: then this one replaces it, keeping
 * its place in the listings, unsettled again (its whole new cost pending), and its day total moves
 * by the difference. A replacement costs at most what its closure did (`charge_capped` then): the
 * closure gave the reservation back. A record that is `lost` (its row was reclaimed with nothing
 * checkpointed) costs nothing. Closures are locked in id order, as settlement locks what it
 * settles, and every day row is upserted in this one statement in key, day, model order, so two
 * instances writing the same rows wait for each other rather than deadlock.
 */
const recordCtes = `
closures AS MATERIALIZED (
  SELECT generations.id, generations.key_id, generations.account_id, generations.funding_key_id,
    generations.model, generations.created_at, generations.prompt_tokens,
    generations.completion_tokens, generations.cost_nanos, generations.settled
  FROM generations JOIN input USING (id)
  WHERE generations.closed_by_lease AND NOT input.closed_by_lease
  ORDER BY generations.id
  FOR UPDATE OF generations
),
replaced AS (
  UPDATE generations SET ${replacedColumns
    .map((column) => `${column} = ${replacing[column] ?? `input.${column}`}`)
    .join(', ')},
    settled = false, settled_at = NULL, closed_by_lease = false
  FROM input
  WHERE generations.id = input.id AND generations.id IN (SELECT id FROM closures)
  RETURNING generations.id
),
inserted AS (
  INSERT INTO generations (account_id, closed_by_lease, ${recordColumns.join(', ')})
  SELECT COALESCE(keys.parent_id, input.key_id), input.closed_by_lease,
    ${recordColumns.map((column) => inserting[column] ?? `input.${column}`).join(', ')}
  FROM input LEFT JOIN keys ON keys.id = input.key_id
  WHERE input.id NOT IN (SELECT id FROM closures)
  ORDER BY input.ord
  ON CONFLICT (id) DO NOTHING
  RETURNING id, key_id, account_id, funding_key_id, model, created_at, prompt_tokens,
    completion_tokens, cost_nanos, settled
),
moved AS (
  SELECT key_id, account_id, (created_at / 86400)::integer AS day, model, 1 AS requests,
    prompt_tokens, completion_tokens, cost_nanos
  FROM inserted
  UNION ALL
  SELECT closures.key_id, closures.account_id, (closures.created_at / 86400)::integer, closures.model,
    0, input.prompt_tokens - closures.prompt_tokens,
    input.completion_tokens - closures.completion_tokens,
    LEAST(input.cost_nanos, closures.cost_nanos) - closures.cost_nanos
  FROM closures JOIN input USING (id)
),
days AS (
  INSERT INTO generation_days (key_id, account_id, day, model, requests, prompt_tokens,
    completion_tokens, cost_nanos)
  SELECT key_id, account_id, day, model, SUM(requests), SUM(prompt_tokens),
    SUM(completion_tokens), SUM(cost_nanos)
  FROM moved
  GROUP BY key_id, account_id, day, model
  ORDER BY key_id, day, model
  ON CONFLICT (key_id, day, model) DO UPDATE SET
    requests = generation_days.requests + excluded.requests,
    prompt_tokens = generation_days.prompt_tokens + excluded.prompt_tokens,
    completion_tokens = generation_days.completion_tokens + excluded.completion_tokens,
    cost_nanos = generation_days.cost_nanos + excluded.cost_nanos
  RETURNING key_id
)`;

/** What `recordCtes` did, a row per record: `inserted`, or `replaced` with what its closure charged. */
const writtenSql = `
SELECT 'inserted' AS outcome, id, funding_key_id, cost_nanos, settled, 0 AS closure_nanos
FROM inserted
UNION ALL
SELECT 'replaced', closures.id, closures.funding_key_id,
  LEAST(input.cost_nanos, closures.cost_nanos), closures.settled, closures.cost_nanos
FROM closures JOIN input USING (id) JOIN replaced USING (id)`;

/** Writes a batch of records given as JSON in one statement (`recordCtes`). */
const insertRecordsSql = `
WITH input AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(ord integer, lost boolean,
    closed_by_lease boolean, ${columnDefinitions('postgres')})
),
${recordCtes}
${writtenSql}`;

/**
 * Moves money between a funding key's counters, every key once, the keys locked in id order
 * first (so two instances settling and recording at once wait rather than deadlock).
 */
const applyDeltasSql = `
WITH delta AS (
  SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[])
    AS d(id, consumption, pending, reserved)
),
locked AS MATERIALIZED (
  SELECT keys.id FROM keys JOIN delta ON delta.id = keys.id ORDER BY keys.id FOR UPDATE OF keys
)
UPDATE keys SET consumption_nanos = keys.consumption_nanos + delta.consumption,
  pending_nanos = keys.pending_nanos + delta.pending,
  reserved_nanos = keys.reserved_nanos + delta.reserved
FROM delta JOIN locked ON locked.id = delta.id
WHERE keys.id = delta.id`;

/**
 * Charges of budget periods that ended while their requests ran: each joins its key's new base,
 * so the new period does not pay for it (rare: near a period's end only). Run after
 * `applyDeltasSql`, whose transaction already holds these keys' rows.
 */
const chargeEarlierPeriodsSql = `
UPDATE keys SET period_base_nanos = keys.period_base_nanos + earlier.nanos
FROM (
  SELECT e.id, SUM(e.nanos) AS nanos
  FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS e(id, admitted, nanos)
  JOIN keys ON keys.id = e.id
  WHERE keys.period_started_at > e.admitted
  GROUP BY e.id
) AS earlier
WHERE keys.id = earlier.id`;

/** Deletes in-flight rows by id, locking them in id order; gives back what each held. */
const deleteInflightSql = `
DELETE FROM inflight WHERE id IN (
  SELECT id FROM inflight WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE
)
RETURNING id, funding_key_id, reserved_nanos`;

/**
 * Requests' own records in one statement, so that an answer waits for one round trip (the
 * transaction of `deleteInflightSql`, `insertRecordsSql`, `applyDeltasSql`, and the money moved
 * between them in JavaScript, took five): the in-flight rows deleted, the records written
 * (`recordCtes`; `lost` when a row was written and is gone without a closure), the keys'
 * counters moved as `postgresWrites` moves them, and the keys whose consumption moved announced.
 * The locks are taken in the transaction's order (in-flight rows, closures, day totals, keys):
 * each step reads the one before, and `delta` reads `days` before the keys are locked.
 *
 * One statement sees the database as it was when it started: a closure that a reclaim commits
 * while this statement waits for its in-flight row is not seen, and its record is not written.
 * Such a record comes back as `raced`, to be written again by the transaction, which sees it.
 */
const recordRequestsSql = (channel: string) => `
WITH deleted AS (
  DELETE FROM inflight WHERE id IN (
    SELECT id FROM inflight WHERE id = ANY($2::text[]) ORDER BY id FOR UPDATE
  )
  RETURNING id, funding_key_id, reserved_nanos
),
input AS MATERIALIZED (
  -- Every row deleted (and locked) before any record is written: an aggregate reads it whole.
  SELECT r.*, false AS closed_by_lease,
    r.inflight_row_written AND NOT r.id = ANY(gone.ids) AS lost
  FROM jsonb_to_recordset($1::jsonb) AS r(ord integer, inflight_row_written boolean,
    admitted_period_start bigint, ${columnDefinitions('postgres')}),
    (SELECT COALESCE(array_agg(id), '{}') AS ids FROM deleted) AS gone
),
${recordCtes},
written AS MATERIALIZED (${writtenSql}
),
moves AS (
  SELECT funding_key_id AS id, 0::bigint AS consumption, 0::bigint AS pending,
    -reserved_nanos AS reserved
  FROM deleted
  UNION ALL
  SELECT funding_key_id,
    CASE WHEN outcome = 'replaced' AND settled THEN -closure_nanos ELSE 0 END,
    CASE WHEN outcome = 'inserted' THEN CASE WHEN settled THEN 0 ELSE cost_nanos END
      WHEN settled THEN cost_nanos ELSE cost_nanos - closure_nanos END,
    0
  FROM written
),
delta AS (
  SELECT id, SUM(consumption) AS consumption, SUM(pending) AS pending, SUM(reserved) AS reserved
  FROM moves
  WHERE (SELECT count(*) FROM days) >= 0
  GROUP BY id
),
earlier AS (
  SELECT written.funding_key_id AS id, input.admitted_period_start AS admitted,
    written.cost_nanos AS nanos
  FROM written JOIN input USING (id)
  WHERE written.outcome = 'inserted' AND input.admitted_period_start IS NOT NULL
    AND written.cost_nanos > 0 AND NOT input.lost
),
locked AS MATERIALIZED (
  SELECT keys.id FROM keys
  WHERE keys.id IN (SELECT id FROM delta UNION SELECT id FROM earlier)
  ORDER BY keys.id
  FOR UPDATE OF keys
),
updated AS (
  UPDATE keys SET
    consumption_nanos = keys.consumption_nanos + COALESCE(delta.consumption, 0),
    pending_nanos = keys.pending_nanos + COALESCE(delta.pending, 0),
    reserved_nanos = keys.reserved_nanos + COALESCE(delta.reserved, 0),
    period_base_nanos = keys.period_base_nanos + COALESCE((
      SELECT SUM(earlier.nanos) FROM earlier
      WHERE earlier.id = keys.id AND keys.period_started_at > earlier.admitted
    ), 0)
  FROM locked LEFT JOIN delta ON delta.id = locked.id
  WHERE keys.id = locked.id
  RETURNING keys.id
),
notified AS (
  SELECT pg_notify('${channel}', funding_key_id) FROM (
    SELECT DISTINCT funding_key_id FROM written WHERE outcome = 'replaced' AND settled
  ) AS consumed
)
SELECT written.outcome, written.id, written.cost_nanos, written.settled, written.closure_nanos,
  input.lost
FROM written JOIN input USING (id)
WHERE (SELECT count(*) FROM updated) >= 0 AND (SELECT count(*) FROM notified) >= 0
UNION ALL
SELECT 'raced', input.id, 0, false, 0, false
FROM input
WHERE input.inflight_row_written AND input.id NOT IN (SELECT id FROM deleted)
  AND input.id NOT IN (SELECT id FROM written)`;

type KeyDelta = { consumption: Nanos; pending: Nanos; reserved: Nanos };

/** What a transaction moves on funding keys' counters, summed per key. */
export class KeyDeltas {
  private readonly deltas = new Map<string, KeyDelta>();
  /** Charges admitted in a budget period that may have ended since (`chargeEarlierPeriodsSql`). */
  readonly earlier: Array<{ id: string; admitted: number; nanos: Nanos }> = [];

  add(keyId: string, field: keyof KeyDelta, nanos: Nanos): void {
    if (nanos === 0) return;
    let delta = this.deltas.get(keyId);
    if (!delta) {
      delta = { consumption: 0, pending: 0, reserved: 0 };
      this.deltas.set(keyId, delta);
    }
    delta[field] += nanos;
  }

  /** The parameters of `applyDeltasSql`, or null when nothing moves. */
  parameters(): [string[], Nanos[], Nanos[], Nanos[]] | null {
    if (this.deltas.size === 0) return null;
    const ids = [...this.deltas.keys()].sort();
    const of = (field: keyof KeyDelta) => ids.map((id) => this.deltas.get(id)![field]);
    return [ids, of('consumption'), of('pending'), of('reserved')];
  }
}

export type PostgresWrites = ReturnType<typeof postgresWrites>;

/** `channel`: where key changes are announced (keys.ts, `keyChannel`). */
export function postgresWrites(query: PostgresQuery, channel: string) {
  const recordRequestsStatement = recordRequestsSql(channel);
  const applyDeltas = async (deltas: KeyDeltas) => {
    const parameters = deltas.parameters();
    if (parameters) await query(applyDeltasSql, parameters, 'apply-deltas');
    const { earlier } = deltas;
    if (earlier.length > 0) {
      await query(
        chargeEarlierPeriodsSql,
        [earlier.map((e) => e.id), earlier.map((e) => e.admitted), earlier.map((e) => e.nanos)],
        'charge-earlier-periods',
      );
    }
  };

  /**
   * Writes records not already stored (`insertRecordsSql`); their unsettled cost becomes their
   * funder's pending, and a replaced closure's is corrected (a settled one leaves consumption).
   * `closedByLease`: they close in-flight rows whose lease ran out, and may be replaced later.
   */
  const insertRecords = async (
    rows: GenerationRow[],
    deltas: KeyDeltas,
    closedByLease = false,
    lost: ReadonlySet<string> = new Set(),
  ) => {
    const input = rows.map((row, ord) => ({
      ord,
      lost: lost.has(row.id),
      closed_by_lease: closedByLease,
      ...toColumns(row, 'postgres'),
    }));
    const { rows: written } = await query<{
      outcome: 'inserted' | 'replaced';
      id: string;
      funding_key_id: string;
      cost_nanos: number;
      settled: boolean;
      closure_nanos: number;
    }>(insertRecordsSql, [JSON.stringify(input)], 'insert-records');
    const inserted = new Set<string>();
    const admittedIn = new Map(
      rows.flatMap((row) =>
        row.admittedPeriodStart === undefined ? [] : [[row.id, row.admittedPeriodStart] as const],
      ),
    );
    const corrections: RecordCorrection[] = [];
    const consumed = new Set<string>();
    for (const record of written) {
      if (record.outcome === 'inserted') {
        inserted.add(record.id);
        if (!record.settled) deltas.add(record.funding_key_id, 'pending', record.cost_nanos);
        const admitted = admittedIn.get(record.id);
        if (admitted !== undefined && record.cost_nanos > 0 && !lost.has(record.id)) {
          deltas.earlier.push({ id: record.funding_key_id, admitted, nanos: record.cost_nanos });
        }
        // Charged nothing, whatever it cost: the budget must count nothing either.
        if (lost.has(record.id))
          corrections.push({ id: record.id, pendingNanos: 0, chargedNanos: 0 });
        continue;
      }
      const pendingNanos = record.cost_nanos - (record.settled ? 0 : record.closure_nanos);
      deltas.add(record.funding_key_id, 'pending', pendingNanos);
      if (record.settled) {
        deltas.add(record.funding_key_id, 'consumption', -record.closure_nanos);
        consumed.add(record.funding_key_id);
      }
      corrections.push({
        id: record.id,
        pendingNanos,
        chargedNanos: record.cost_nanos - record.closure_nanos,
      });
    }
    return { inserted, corrections, consumed: [...consumed] };
  };

  /**
   * Writes requests' own records (not closures) in one statement (`recordRequestsSql`), on
   * `connections`; what each moved, as `insertRecords`, and the ids of those it could not write
   * (`raced`: a closure committed while it ran), for the transaction to write.
   */
  const recordRequests = async (rows: GenerationRow[], connections?: pg.Pool) => {
    const input = rows.map((row, ord) => ({
      ord,
      inflight_row_written: row.inflightRowWritten === true,
      admitted_period_start: row.admittedPeriodStart ?? null,
      ...toColumns(row, 'postgres'),
    }));
    const { rows: written } = await query<{
      outcome: 'inserted' | 'replaced' | 'raced';
      id: string;
      cost_nanos: number;
      settled: boolean;
      closure_nanos: number;
      lost: boolean;
    }>(
      recordRequestsStatement,
      [JSON.stringify(input), rows.map((row) => row.id)],
      'record-requests',
      connections,
    );
    const corrections: RecordCorrection[] = [];
    const raced = new Set<string>();
    for (const record of written) {
      if (record.outcome === 'raced') raced.add(record.id);
      else if (record.outcome === 'replaced') {
        corrections.push({
          id: record.id,
          pendingNanos: record.cost_nanos - (record.settled ? 0 : record.closure_nanos),
          chargedNanos: record.cost_nanos - record.closure_nanos,
        });
      } else if (record.lost) corrections.push({ id: record.id, pendingNanos: 0, chargedNanos: 0 });
    }
    return { corrections, raced };
  };

  /** Returns the ids of the rows it deleted. */
  const deleteInflight = async (ids: string[], deltas: KeyDeltas) => {
    const { rows } = await query<{ id: string; funding_key_id: string; reserved_nanos: number }>(
      deleteInflightSql,
      [ids],
      'delete-inflight',
    );
    for (const row of rows) deltas.add(row.funding_key_id, 'reserved', -row.reserved_nanos);
    return new Set(rows.map((row) => row.id));
  };

  /** Tells every instance these keys changed (their registries read them again). */
  const notifyKeys = async (ids: string[]) => {
    if (ids.length === 0) return;
    await query(`SELECT pg_notify('${channel}', id) FROM unnest($1::text[]) AS id`, [ids]);
  };

  return { applyDeltas, insertRecords, recordRequests, deleteInflight, notifyKeys };
}
