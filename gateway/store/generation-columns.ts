/**
 * The generation record's columns, as both stores and the writer use them, all derived from its
 * one definition (contract/generation-record.ts): the column lists of their statements, a record's
 * values as each engine's driver takes them, and a stored row back as the record.
 */
import {
  columnTypes,
  generationFieldList,
  type FieldKind,
  type GenerationValues,
} from '../../contract/generation-record';

export type Engine = 'sqlite' | 'postgres';

/** Every column of the record, in the definition's order. */
export const recordColumns: readonly string[] = generationFieldList.map(([, spec]) => spec.column);

/**
 * The columns a request's own record writes over the record written when its lease ran out (the
 * others are kept, or reset by the writer).
 */
export const replacedColumns: readonly string[] = generationFieldList
  .filter(([, spec]) => spec.onReplace === 'replaced')
  .map(([, spec]) => spec.column);

/** `column type, …` of every column on `engine`, as `jsonb_to_recordset` reads them. */
export const columnDefinitions = (engine: Engine): string =>
  generationFieldList
    .map(([, spec]) => `${spec.column} ${columnTypes[spec.kind][engine]}`)
    .join(', ');

const encode = (kind: FieldKind, value: unknown, engine: Engine): unknown => {
  if (kind === 'flag') return engine === 'sqlite' ? (value ? 1 : 0) : value === true;
  if (kind === 'json' && engine === 'sqlite') return value == null ? null : JSON.stringify(value);
  return value;
};

/** A record's values by column, as `engine`'s driver takes them; a left-out field as its `absent`. */
export function toColumns(values: GenerationValues, engine: Engine): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  for (const [name, spec] of generationFieldList) {
    const value = (values as Record<string, unknown>)[name];
    columns[spec.column] = encode(
      spec.kind,
      value ?? ('absent' in spec ? spec.absent : value),
      engine,
    );
  }
  return columns;
}

const decode = (kind: FieldKind, value: unknown): unknown => {
  if (kind === 'flag') return value === true || value === 1;
  if (kind === 'json' && typeof value === 'string') return JSON.parse(value) as unknown;
  return value;
};

/**
 * A stored row (SQLite: a flag as 0/1, JSON as text; PostgreSQL: a boolean, parsed JSON) as the
 * record's values; a column that is null or missing (an older row) as its field's `absent` value.
 */
export function fromColumns(row: Record<string, unknown>): GenerationValues {
  const values: Record<string, unknown> = {};
  for (const [name, spec] of generationFieldList) {
    const value = row[spec.column];
    values[name] = value == null && 'absent' in spec ? spec.absent : decode(spec.kind, value);
  }
  return values as GenerationValues;
}
