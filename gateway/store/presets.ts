/**
 * Presets the operator added through the admin API (docs/routing.md): a store by data type,
 * written once over SqlDatabase for both engines. A preset is kept as the JSON it was accepted
 * as; the gateway checks it again when it loads it. Every change moves `presets_version` in the
 * same transaction, which each gateway polls to learn that another instance changed a preset.
 * The contract suite (preset-store-contract.ts) runs it on SQLite and on PostgreSQL.
 */
import type { SqlDatabase } from './sql-database';

export type StoredPresetRow = {
  /** `@preset/<slug>`. */
  id: string;
  /** The preset as accepted (contract/routing.ts `presetSchema`), its `id` included. */
  definition: Record<string, unknown>;
  /** Unix seconds of the last change. */
  updatedAt: number;
};

export interface PresetStore {
  /** Every stored preset, by id. */
  list(): Promise<StoredPresetRow[]>;
  /** Adds or replaces a preset; true when it was new. */
  put(row: StoredPresetRow): Promise<boolean>;
  /** Whether a preset was deleted. */
  delete(id: string): Promise<boolean>;
  /** A number that moves with every change, on any instance. */
  version(): Promise<number>;
}

type Row = { id: string; definition: string | Record<string, unknown>; updated_at: number };

const BUMP = 'UPDATE presets_version SET version = version + 1 WHERE id = 1';

/** `transaction` is the store's: statements made inside it join it, on both engines. */
export function presetStore(
  db: SqlDatabase,
  transaction: <T>(work: () => Promise<T>) => Promise<T>,
): PresetStore {
  return {
    list: async () =>
      (await db.all<Row>('SELECT * FROM presets ORDER BY id')).map((row) => ({
        id: row.id,
        // SQLite keeps JSON as text; PostgreSQL's driver parses JSONB.
        definition:
          typeof row.definition === 'string'
            ? (JSON.parse(row.definition) as Record<string, unknown>)
            : row.definition,
        updatedAt: Number(row.updated_at),
      })),
    put: (row) =>
      transaction(async () => {
        // The version row first: its lock orders concurrent writers, so "new" is told exactly.
        await db.run(BUMP);
        const existing = await db.all('SELECT id FROM presets WHERE id = ?', [row.id]);
        await db.run(
          `INSERT INTO presets (id, definition, updated_at) VALUES (?, ?, ?)
           ON CONFLICT (id) DO UPDATE SET definition = excluded.definition,
             updated_at = excluded.updated_at`,
          [row.id, JSON.stringify(row.definition), row.updatedAt],
        );
        return existing.length === 0;
      }),
    delete: (id) =>
      transaction(async () => {
        const deleted = (await db.run('DELETE FROM presets WHERE id = ?', [id])) > 0;
        if (deleted) await db.run(BUMP);
        return deleted;
      }),
    version: async () =>
      Number(
        (await db.all<{ version: number | string }>('SELECT version FROM presets_version'))[0]
          ?.version ?? 0,
      ),
  };
}
