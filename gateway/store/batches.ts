/**
 * Batches (docs/batches.md): uploaded files, batches and their lines, a store by data type written
 * once over SqlDatabase for both engines. A line is claimed by one instance for a lease; a claim
 * that lapsed (its instance died) is taken again, by another instance or the same one restarted.
 * The contract suite (batch-store-contract.ts) runs it on SQLite and on PostgreSQL.
 */
import type { Nanos } from '../shared/money';
import type { SqlDatabase } from './sql-database';

/** `batch`: uploaded; `batch_output` and `batch_errors`: a batch's results, read from its lines. */
export type BatchFilePurpose = 'batch' | 'batch_output' | 'batch_errors';

export type BatchFileRow = {
  /** `file-…`. */
  id: string;
  keyId: string;
  purpose: BatchFilePurpose;
  filename: string;
  bytes: number;
  /** The JSONL uploaded; null for a batch's output or error file, made from its lines. */
  content: string | null;
  /** The batch whose results the file holds; null for an upload. */
  batchId: string | null;
  /** Unix seconds. */
  createdAt: number;
};

/** OpenAI's batch statuses; the Anthropic shape maps them to its `processing_status`. */
export type BatchStatus =
  | 'validating'
  | 'failed'
  | 'in_progress'
  | 'finalizing'
  | 'completed'
  | 'expired'
  | 'cancelling'
  | 'cancelled';

export type BatchRow = {
  /** `batch_…` (OpenAI shape) or `msgbatch_…` (Anthropic shape). */
  id: string;
  keyId: string;
  shape: 'openai' | 'anthropic';
  /** The path every line is sent to: `/v1/chat/completions`, `/v1/responses`, `/v1/embeddings`, `/v1/messages`. */
  endpoint: string;
  inputFileId: string | null;
  metadata: Record<string, string> | null;
  status: BatchStatus;
  outputFileId: string | null;
  errorFileId: string | null;
  /** Unix seconds. */
  createdAt: number;
  inProgressAt: number | null;
  cancellingAt: number | null;
  /** When it completed or was cancelled. */
  endedAt: number | null;
  expiresAt: number;
  /** Whether its `batch.completed` (or `batch.failed`) event was written. */
  eventSent: boolean;
};

/** `succeeded` and `errored` ran (or were refused); `cancelled` never ran. */
export type LineState = 'pending' | 'running' | 'succeeded' | 'errored' | 'cancelled';

export type BatchLineRow = {
  batchId: string;
  index: number;
  customId: string;
  /** The request body to send; null for a line refused when the batch was created. */
  request: unknown;
  state: LineState;
  claimedBy: string | null;
  /** Unix milliseconds. */
  leaseExpiresAt: number | null;
  /** The HTTP status the line would have had as a request of its own. */
  statusCode: number | null;
  /** The answer's body, or the error's. */
  result: unknown;
  /** Its generation record (its trace id), when it was admitted. */
  generationId: string | null;
  costNanos: Nanos;
};

/** How a line ended. */
export type LineOutcome = Pick<
  BatchLineRow,
  'state' | 'statusCode' | 'result' | 'generationId' | 'costNanos'
>;

export type LineCounts = {
  total: number;
  pending: number;
  running: number;
  succeeded: number;
  errored: number;
  cancelled: number;
  /** What the lines that ran were charged. */
  costNanos: Nanos;
};

export interface BatchStore {
  insertFile(row: BatchFileRow): Promise<void>;
  getFile(id: string): Promise<BatchFileRow | undefined>;
  /** Whether a file was deleted. */
  deleteFile(id: string): Promise<boolean>;
  /** The batch and its lines, in one transaction. */
  createBatch(batch: BatchRow, lines: BatchLineRow[]): Promise<void>;
  getBatch(id: string): Promise<BatchRow | undefined>;
  /** A key's batches of one shape, newest first, after the batch `after` when given. */
  listBatches(
    keyId: string,
    shape: BatchRow['shape'],
    options: { limit: number; after?: string },
  ): Promise<BatchRow[]>;
  /** Batches with lines to run or to wait for (`in_progress`, `cancelling`), oldest first. */
  runnable(): Promise<BatchRow[]>;
  /**
   * Up to `limit` lines of a batch to run, in order: pending ones, or running ones whose claim's
   * lease ended before `nowMs`. Each is claimed by `instanceId` until `leaseExpiresAt`; two
   * instances never get the same line.
   */
  claimLines(
    batchId: string,
    instanceId: string,
    leaseExpiresAt: number,
    nowMs: number,
    limit: number,
  ): Promise<BatchLineRow[]>;
  /** Renews the lease of lines `instanceId` still runs. */
  renewLines(
    instanceId: string,
    leaseExpiresAt: number,
    lines: ReadonlyArray<{ batchId: string; index: number }>,
  ): Promise<void>;
  /** Ends a line `instanceId` claimed; false when its claim was lost (taken again elsewhere). */
  finishLine(
    batchId: string,
    index: number,
    instanceId: string,
    outcome: LineOutcome,
  ): Promise<boolean>;
  counts(batchId: string): Promise<LineCounts>;
  /**
   * Cancels a batch that is running: `cancelling`, its pending lines `cancelled`. The batch as it
   * is afterwards; undefined when there is none.
   */
  cancel(batchId: string, now: number): Promise<BatchRow | undefined>;
  /**
   * Ends a batch none of whose lines is pending or running: `completed` (or `cancelled` when it was
   * cancelling), with its output and error files (each when some line goes in it). The batch as
   * ended, or undefined when it was not ready or another instance ended it first.
   */
  finish(batchId: string, now: number): Promise<BatchRow | undefined>;
  /** Ended lines of a batch in order, of the given states, from `fromIndex`. */
  lines(
    batchId: string,
    states: readonly LineState[],
    options: { fromIndex: number; limit: number },
  ): Promise<BatchLineRow[]>;
  /** Marks a batch's event as written; false when it already was (another instance wrote it). */
  markEventSent(batchId: string): Promise<boolean>;
}

type FileRecord = {
  id: string;
  key_id: string;
  purpose: BatchFilePurpose;
  filename: string;
  bytes: number;
  content: string | null;
  batch_id: string | null;
  created_at: number;
};

type BatchRecord = {
  id: string;
  key_id: string;
  shape: BatchRow['shape'];
  endpoint: string;
  input_file_id: string | null;
  metadata: string | null;
  status: BatchStatus;
  output_file_id: string | null;
  error_file_id: string | null;
  created_at: number;
  in_progress_at: number | null;
  cancelling_at: number | null;
  ended_at: number | null;
  expires_at: number;
  event_sent: number | boolean;
};

type LineRecord = {
  batch_id: string;
  line_index: number;
  custom_id: string;
  request: string | null;
  state: LineState;
  claimed_by: string | null;
  lease_expires_at: number | null;
  status_code: number | null;
  result: string | null;
  generation_id: string | null;
  cost_nanos: number;
};

const numberOrNull = (value: number | null) => (value === null ? null : Number(value));
const jsonOrNull = (value: string | null): unknown => (value === null ? null : JSON.parse(value));

const fileRow = (record: FileRecord): BatchFileRow => ({
  id: record.id,
  keyId: record.key_id,
  purpose: record.purpose,
  filename: record.filename,
  bytes: Number(record.bytes),
  content: record.content,
  batchId: record.batch_id,
  createdAt: Number(record.created_at),
});

const batchRow = (record: BatchRecord): BatchRow => ({
  id: record.id,
  keyId: record.key_id,
  shape: record.shape,
  endpoint: record.endpoint,
  inputFileId: record.input_file_id,
  metadata: jsonOrNull(record.metadata) as Record<string, string> | null,
  status: record.status,
  outputFileId: record.output_file_id,
  errorFileId: record.error_file_id,
  createdAt: Number(record.created_at),
  inProgressAt: numberOrNull(record.in_progress_at),
  cancellingAt: numberOrNull(record.cancelling_at),
  endedAt: numberOrNull(record.ended_at),
  expiresAt: Number(record.expires_at),
  eventSent: Boolean(record.event_sent),
});

const lineRow = (record: LineRecord): BatchLineRow => ({
  batchId: record.batch_id,
  index: Number(record.line_index),
  customId: record.custom_id,
  request: jsonOrNull(record.request),
  state: record.state,
  claimedBy: record.claimed_by,
  leaseExpiresAt: numberOrNull(record.lease_expires_at),
  statusCode: numberOrNull(record.status_code),
  result: jsonOrNull(record.result),
  generationId: record.generation_id,
  costNanos: Number(record.cost_nanos),
});

/** Lines per INSERT statement when a batch is created. */
const LINES_PER_INSERT = 100;

/** The output and error files' ids, from the batch's: made once, whichever instance ends it. */
export const resultFileId = (batchId: string, purpose: 'batch_output' | 'batch_errors') =>
  `file-${purpose === 'batch_output' ? 'out' : 'err'}-${batchId.replace(/^[a-z]+_/, '')}`;

/** `transaction` is the store's: statements made inside it join it, on both engines. */
export function batchStore(
  db: SqlDatabase,
  transaction: <T>(work: () => Promise<T>) => Promise<T>,
): BatchStore {
  const insertFile = async (row: BatchFileRow) => {
    await db.run(
      `INSERT INTO batch_files (id, key_id, purpose, filename, bytes, content, batch_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        row.id,
        row.keyId,
        row.purpose,
        row.filename,
        row.bytes,
        row.content,
        row.batchId,
        row.createdAt,
      ],
    );
  };
  const getBatch = async (id: string) => {
    const [found] = await db.all<BatchRecord>('SELECT * FROM batches WHERE id = ?', [id]);
    return found && batchRow(found);
  };
  const counts = async (batchId: string): Promise<LineCounts> => {
    const rows = await db.all<{ state: LineState; lines: number; cost: number | null }>(
      `SELECT state, COUNT(*) AS lines, SUM(cost_nanos) AS cost FROM batch_lines
       WHERE batch_id = ? GROUP BY state`,
      [batchId],
    );
    const result: LineCounts = {
      total: 0,
      pending: 0,
      running: 0,
      succeeded: 0,
      errored: 0,
      cancelled: 0,
      costNanos: 0,
    };
    for (const row of rows) {
      result[row.state] = Number(row.lines);
      result.total += Number(row.lines);
      result.costNanos += Number(row.cost ?? 0);
    }
    return result;
  };

  return {
    insertFile,
    getFile: async (id) => {
      const [found] = await db.all<FileRecord>('SELECT * FROM batch_files WHERE id = ?', [id]);
      return found && fileRow(found);
    },
    deleteFile: async (id) => (await db.run('DELETE FROM batch_files WHERE id = ?', [id])) > 0,
    createBatch: (batch, lines) =>
      transaction(async () => {
        await db.run(
          `INSERT INTO batches (id, key_id, shape, endpoint, input_file_id, metadata, status,
             output_file_id, error_file_id, created_at, in_progress_at, cancelling_at, ended_at,
             expires_at, event_sent)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            batch.id,
            batch.keyId,
            batch.shape,
            batch.endpoint,
            batch.inputFileId,
            batch.metadata === null ? null : JSON.stringify(batch.metadata),
            batch.status,
            batch.outputFileId,
            batch.errorFileId,
            batch.createdAt,
            batch.inProgressAt,
            batch.cancellingAt,
            batch.endedAt,
            batch.expiresAt,
            batch.eventSent,
          ],
        );
        for (let start = 0; start < lines.length; start += LINES_PER_INSERT) {
          const chunk = lines.slice(start, start + LINES_PER_INSERT);
          await db.run(
            `INSERT INTO batch_lines (batch_id, line_index, custom_id, request, state, status_code,
               result, cost_nanos)
             VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, 0)').join(', ')}`,
            chunk.flatMap((line) => [
              line.batchId,
              line.index,
              line.customId,
              line.request === null ? null : JSON.stringify(line.request),
              line.state,
              line.statusCode,
              line.result === null ? null : JSON.stringify(line.result),
            ]),
          );
        }
      }),
    getBatch,
    listBatches: async (keyId, shape, options) => {
      const after = options.after ? await getBatch(options.after) : undefined;
      const rows = await db.all<BatchRecord>(
        after
          ? `SELECT * FROM batches WHERE key_id = ? AND shape = ?
               AND (created_at < ? OR (created_at = ? AND id < ?))
             ORDER BY created_at DESC, id DESC LIMIT ?`
          : `SELECT * FROM batches WHERE key_id = ? AND shape = ?
             ORDER BY created_at DESC, id DESC LIMIT ?`,
        after
          ? [keyId, shape, after.createdAt, after.createdAt, after.id, options.limit]
          : [keyId, shape, options.limit],
      );
      return rows.map(batchRow);
    },
    runnable: async () =>
      (
        await db.all<BatchRecord>(
          `SELECT * FROM batches WHERE status IN ('in_progress', 'cancelling')
           ORDER BY created_at, id`,
        )
      ).map(batchRow),
    claimLines: async (batchId, instanceId, leaseExpiresAt, nowMs, limit) => {
      // The condition is repeated outside the subquery: PostgreSQL checks it again on a row
      // another instance claimed meanwhile, so that instance's claim stands and this one skips it.
      const open = `(state = 'pending' OR (state = 'running' AND lease_expires_at < ?))`;
      const rows = await db.all<LineRecord>(
        `UPDATE batch_lines SET state = 'running', claimed_by = ?, lease_expires_at = ?
         WHERE batch_id = ? AND ${open} AND line_index IN (
           SELECT line_index FROM batch_lines WHERE batch_id = ? AND ${open}
           ORDER BY line_index LIMIT ?)
         RETURNING *`,
        [instanceId, leaseExpiresAt, batchId, nowMs, batchId, nowMs, limit],
      );
      return rows.map(lineRow).sort((a, b) => a.index - b.index);
    },
    renewLines: async (instanceId, leaseExpiresAt, lines) => {
      if (lines.length === 0) return;
      await transaction(async () => {
        for (const line of lines) {
          await db.run(
            `UPDATE batch_lines SET lease_expires_at = ?
             WHERE batch_id = ? AND line_index = ? AND claimed_by = ? AND state = 'running'`,
            [leaseExpiresAt, line.batchId, line.index, instanceId],
          );
        }
      });
    },
    finishLine: async (batchId, index, instanceId, outcome) =>
      (await db.run(
        `UPDATE batch_lines SET state = ?, status_code = ?, result = ?, generation_id = ?,
           cost_nanos = ?, lease_expires_at = NULL
         WHERE batch_id = ? AND line_index = ? AND claimed_by = ? AND state = 'running'`,
        [
          outcome.state,
          outcome.statusCode,
          outcome.result === null ? null : JSON.stringify(outcome.result),
          outcome.generationId,
          outcome.costNanos,
          batchId,
          index,
          instanceId,
        ],
      )) > 0,
    counts,
    cancel: (batchId, now) =>
      transaction(async () => {
        const moved = await db.run(
          `UPDATE batches SET status = 'cancelling', cancelling_at = ?
           WHERE id = ? AND status IN ('validating', 'in_progress')`,
          [now, batchId],
        );
        if (moved > 0) {
          await db.run(
            `UPDATE batch_lines SET state = 'cancelled' WHERE batch_id = ? AND state = 'pending'`,
            [batchId],
          );
        }
        return getBatch(batchId);
      }),
    finish: (batchId, now) =>
      transaction(async () => {
        const batch = await getBatch(batchId);
        if (!batch || (batch.status !== 'in_progress' && batch.status !== 'cancelling')) return;
        const lineCounts = await counts(batchId);
        if (lineCounts.pending + lineCounts.running > 0) return;
        const status = batch.status === 'cancelling' ? 'cancelled' : 'completed';
        const output = lineCounts.succeeded > 0 ? resultFileId(batchId, 'batch_output') : null;
        const errors = lineCounts.errored > 0 ? resultFileId(batchId, 'batch_errors') : null;
        // Guarded by the status read: another instance ending it at once changes no row here.
        const moved = await db.run(
          `UPDATE batches SET status = ?, ended_at = ?, output_file_id = ?, error_file_id = ?
           WHERE id = ? AND status = ?`,
          [status, now, output, errors, batchId, batch.status],
        );
        if (moved === 0) return;
        for (const [id, purpose, suffix] of [
          [output, 'batch_output', 'output'],
          [errors, 'batch_errors', 'errors'],
        ] as const) {
          if (id === null) continue;
          await insertFile({
            id,
            keyId: batch.keyId,
            purpose,
            filename: `${batchId}_${suffix}.jsonl`,
            bytes: 0,
            content: null,
            batchId,
            createdAt: now,
          });
        }
        return getBatch(batchId);
      }),
    lines: async (batchId, states, options) =>
      (
        await db.all<LineRecord>(
          `SELECT * FROM batch_lines WHERE batch_id = ? AND line_index >= ?
             AND state IN (${states.map(() => '?').join(', ')})
           ORDER BY line_index LIMIT ?`,
          [batchId, options.fromIndex, ...states, options.limit],
        )
      ).map(lineRow),
    markEventSent: async (batchId) =>
      (await db.run(`UPDATE batches SET event_sent = ? WHERE id = ? AND event_sent = ?`, [
        true,
        batchId,
        false,
      ])) > 0,
  };
}
