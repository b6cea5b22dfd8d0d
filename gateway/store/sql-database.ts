/**
 * The small database interface a store by data type is written against once: statements with `?`
 * placeholders, run on SQLite or PostgreSQL. A statement made inside the store's `transaction`
 * joins it, on both engines.
 */
import type Database from 'better-sqlite3';
import type pg from 'pg';

export interface SqlDatabase {
  readonly engine: 'sqlite' | 'postgres';
  /** The rows a statement returns (a `SELECT`, or a change with `RETURNING`). */
  all<T extends object>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs a change; how many rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
}

/** `run` is the SQLite store's way of running a statement (it joins an open transaction). */
export function sqliteDatabase(
  database: Database.Database,
  run: <T>(work: () => T) => Promise<T>,
): SqlDatabase {
  const prepared = new Map<string, Database.Statement>();
  const statement = (sql: string) => {
    let found = prepared.get(sql);
    if (!found) prepared.set(sql, (found = database.prepare(sql)));
    return found;
  };
  // better-sqlite3 binds neither booleans nor undefined.
  const bind = (params: readonly unknown[]) =>
    params.map((value) =>
      typeof value === 'boolean' ? Number(value) : value === undefined ? null : value,
    );
  return {
    engine: 'sqlite',
    all: (sql, params = []) => run(() => statement(sql).all(...bind(params)) as never),
    run: (sql, params = []) => run(() => statement(sql).run(...bind(params)).changes),
  };
}

/** `query` is the PostgreSQL store's, which runs on the open transaction's connection if any. */
export function postgresDatabase(
  query: (text: string, values?: unknown[]) => Promise<pg.QueryResult>,
): SqlDatabase {
  const numbered = new Map<string, string>();
  const text = (sql: string) => {
    let found = numbered.get(sql);
    if (found === undefined) {
      let index = 0;
      numbered.set(sql, (found = sql.replace(/\?/g, () => `$${++index}`)));
    }
    return found;
  };
  return {
    engine: 'postgres',
    all: async (sql, params = []) => (await query(text(sql), [...params])).rows as never,
    run: async (sql, params = []) => (await query(text(sql), [...params])).rowCount ?? 0,
  };
}
