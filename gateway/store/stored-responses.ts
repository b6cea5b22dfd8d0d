/**
 * Responses kept for the Responses form (`store: true`): one row per response, with the whole
 * conversation it answered, so `previous_response_id` reads one row. A store by data type, apart
 * from the key and record stores; SQLite and PostgreSQL implement the same interface, and
 * the store contract suite (store-contract.ts) runs against both.
 */
import type Database from 'better-sqlite3';
import type pg from 'pg';

export type StoredResponse = {
  id: string;
  keyId: string;
  /** The key itself, or a child's parent: who else may read it. */
  accountId: string;
  createdAt: number;
  /** Unix seconds after which it is gone. */
  expiresAt: number;
  /** The input items of the whole conversation, earlier turns included. */
  context: unknown[];
  /** The response object as the client received it. */
  response: Record<string, unknown>;
};

export interface StoredResponses {
  /** Keeps a response, and drops those whose time has passed. */
  put(row: StoredResponse, now: number): Promise<void>;
  /** The response, unless it expired. */
  get(id: string, now: number): Promise<StoredResponse | undefined>;
  /** Whether a row was deleted. */
  delete(id: string): Promise<boolean>;
}

type Row = {
  id: string;
  key_id: string;
  account_id: string;
  created_at: number;
  expires_at: number;
  context: string | unknown[];
  response: string | Record<string, unknown>;
};

const fromRow = (row: Row): StoredResponse => ({
  id: row.id,
  keyId: row.key_id,
  accountId: row.account_id,
  createdAt: Number(row.created_at),
  expiresAt: Number(row.expires_at),
  // SQLite keeps JSON as text; PostgreSQL's driver parses JSONB.
  context: typeof row.context === 'string' ? (JSON.parse(row.context) as unknown[]) : row.context,
  response:
    typeof row.response === 'string'
      ? (JSON.parse(row.response) as Record<string, unknown>)
      : row.response,
});

/** `run` is the SQLite store's way of running a statement (it waits out a busy writer). */
export function sqliteStoredResponses(
  database: Database.Database,
  run: <T>(work: () => T) => Promise<T>,
): StoredResponses {
  const statements = {
    insert: database.prepare(
      `INSERT INTO stored_responses (id, key_id, account_id, created_at, expires_at, context, response)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    purge: database.prepare('DELETE FROM stored_responses WHERE expires_at <= ?'),
    get: database.prepare<[string, number], Row>(
      'SELECT * FROM stored_responses WHERE id = ? AND expires_at > ?',
    ),
    delete: database.prepare('DELETE FROM stored_responses WHERE id = ?'),
  };
  const put = database.transaction((row: StoredResponse, now: number) => {
    statements.purge.run(now);
    statements.insert.run(
      row.id,
      row.keyId,
      row.accountId,
      row.createdAt,
      row.expiresAt,
      JSON.stringify(row.context),
      JSON.stringify(row.response),
    );
  });
  return {
    put: (row, now) => run(() => put(row, now)),
    get: (id, now) =>
      run(() => {
        const row = statements.get.get(id, now);
        return row ? fromRow(row) : undefined;
      }),
    delete: (id) => run(() => statements.delete.run(id).changes > 0),
  };
}

export function postgresStoredResponses(pool: pg.Pool): StoredResponses {
  return {
    async put(row, now) {
      // One statement: the answer waits for this write, so it costs one round trip.
      await pool.query(
        `WITH purged AS (DELETE FROM stored_responses WHERE expires_at <= $8)
         INSERT INTO stored_responses (id, key_id, account_id, created_at, expires_at, context, response)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          row.id,
          row.keyId,
          row.accountId,
          row.createdAt,
          row.expiresAt,
          JSON.stringify(row.context),
          JSON.stringify(row.response),
          now,
        ],
      );
    },
    async get(id, now) {
      const { rows } = await pool.query<Row>(
        'SELECT * FROM stored_responses WHERE id = $1 AND expires_at > $2',
        [id, now],
      );
      return rows[0] ? fromRow(rows[0]) : undefined;
    },
    async delete(id) {
      const result = await pool.query('DELETE FROM stored_responses WHERE id = $1', [id]);
      return (result.rowCount ?? 0) > 0;
    },
  };
}
