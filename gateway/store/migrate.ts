/**
 * Versioned SQL migrations, one scheme for both engines: `migrations/<engine>/NNNN_name.sql`,
 * applied in order at start-up, each once, each in its own transaction, with a lock so that two
 * processes starting together never apply one twice.
 *
 * - SQLite keeps counting in `PRAGMA user_version`, as it did before the files: 0001 is the
 *   schema every database already had (idempotent, IF NOT EXISTS), and user_version counts the
 *   files applied after it, so file NNNN is applied when user_version < NNNN - 1. The write lock
 *   is `BEGIN IMMEDIATE`, taken before user_version is read.
 * - PostgreSQL records each file in `schema_migrations(version, name, applied_at)` under a
 *   session advisory lock held on one dedicated connection for the whole run.
 *
 * The files are read at run time from beside this module: `gateway/store/migrations` from
 * source, `dist/migrations` from the bundle (scripts/build.mjs copies them there).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import type { Logger } from 'pino';
import type pg from 'pg';
import { withPooledConnection } from './pooled-connection';

export type Migration = { version: number; name: string; sql: string };

export type Engine = 'sqlite' | 'postgres';

const fileName = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/** Where the files are: beside this module, whether it runs from source or from the bundle. */
export function migrationsFolder(engine: Engine): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations', engine);
}

const cache = new Map<Engine, Migration[]>();

/** The engine's migrations in order; numbered 0001 upwards without a gap. */
export function readMigrations(engine: Engine): Migration[] {
  const cached = cache.get(engine);
  if (cached) return cached;
  const folder = migrationsFolder(engine);
  if (!fs.existsSync(folder)) {
    throw new Error(`The ${engine} migrations are missing: no folder ${folder}.`);
  }
  const migrations = fs
    .readdirSync(folder)
    .flatMap((file) => {
      const match = fileName.exec(file);
      if (!match) return [];
      const sql = fs.readFileSync(path.join(folder, file), 'utf8');
      return [{ version: Number(match[1]), name: match[2]!, sql }];
    })
    .sort((a, b) => a.version - b.version);
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(
        `The ${engine} migrations in ${folder} must be numbered 0001 upwards without a gap or a repeat (found ${migration.version} at position ${index + 1}).`,
      );
    }
  });
  cache.set(engine, migrations);
  return migrations;
}

/**
 * Brings a SQLite database up to date. Each step takes the write lock (`BEGIN IMMEDIATE`, which
 * waits out `busy_timeout`) before reading user_version, so a second process starting at the same
 * moment waits, then finds the file applied and moves on.
 */
export function migrateSqlite(database: Database.Database): void {
  const migrations = readMigrations('sqlite');
  const step = database.transaction((): boolean => {
    const applied = database.pragma('user_version', { simple: true }) as number;
    if (applied === 0) database.exec(migrations[0]!.sql);
    const next = migrations.find((migration) => migration.version === applied + 2);
    if (!next) return false;
    database.exec(next.sql);
    database.pragma(`user_version = ${next.version - 1}`);
    return true;
  });
  while (step.immediate()) {
    // One file per transaction, until none is left.
  }
}

/** Advisory lock class of the migration runner (the second key is the schema's hash). */
const MIGRATION_LOCK = 0x6777_0001;

/** A schema name usable unquoted, in `search_path` and in DDL. */
export function checkSchemaName(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(
      `The PostgreSQL schema name "${schema}" must be lower-case letters, digits and underscores.`,
    );
  }
  return schema;
}

/**
 * Brings a PostgreSQL schema up to date, creating it if missing. Holds a session advisory lock
 * (per schema) on one connection for the whole run: a second instance starting at the same time
 * waits for the first, then finds every file recorded. Each file and its record commit together,
 * so a crash mid-run leaves nothing half applied.
 */
export async function migratePostgres(
  pool: pg.Pool,
  schema: string,
  logger?: Logger,
): Promise<Migration[]> {
  checkSchemaName(schema);
  const migrations = readMigrations('postgres');
  return withPooledConnection(pool, async (client, drop) => {
    // Closed, not pooled: its session state (search_path, a lock an unlock failed to free) goes
    // with it.
    drop();
    await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [MIGRATION_LOCK, schema]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query(`SET search_path TO ${schema}`);
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
      const result = await client.query<{ version: number }>(
        'SELECT version FROM schema_migrations',
      );
      const done = new Set(result.rows.map((row) => Number(row.version)));
      const applied: Migration[] = [];
      for (const migration of migrations) {
        if (done.has(migration.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
            migration.version,
            migration.name,
          ]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          throw new Error(
            `PostgreSQL migration ${String(migration.version).padStart(4, '0')}_${migration.name} failed: ${(error as Error).message}`,
            { cause: error },
          );
        }
        logger?.info({ version: migration.version, name: migration.name, schema }, 'migrated');
        applied.push(migration);
      }
      return applied;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [MIGRATION_LOCK, schema]);
    }
  });
}
