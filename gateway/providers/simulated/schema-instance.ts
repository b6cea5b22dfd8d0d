/**
 * A small JSON value that satisfies a JSON Schema, for the simulated models' structured outputs:
 * every declared property of an object (required or not), one item of an array (or as many as
 * `minItems` asks), the first of an `enum`, numbers inside their bounds, strings of their
 * format and length. `$ref` to `#/$defs/…` or `#/definitions/…` is followed; `anyOf` and `oneOf`
 * take their first branch that is not `null`; `allOf` merges its object branches.
 * @see https://json-schema.org/understanding-json-schema/reference
 */

type Schema = Record<string, unknown>;

/** Deeper than this, an object keeps only its required properties and an array is empty. */
const MAX_DEPTH = 8;

export function instanceOf(schema: Schema, word: string): unknown {
  return build(schema, schema, word, 0);
}

const asSchema = (value: unknown): Schema =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Schema) : {};

function resolve(schema: Schema, root: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (!match) return {};
  const target = asSchema(asSchema(root[match[1]!])[decodeURIComponent(match[2]!)]);
  return { ...target, ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$ref')) };
}

function typeOf(schema: Schema): string | undefined {
  const { type } = schema;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return (type.find((one) => one !== 'null') ?? type[0]) as string;
  if (schema.properties !== undefined) return 'object';
  if (schema.items !== undefined) return 'array';
  return undefined;
}

function build(input: Schema, root: Schema, word: string, depth: number): unknown {
  const schema = resolve(input, root);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) {
      const branch =
        branches.map(asSchema).find((one) => typeOf(resolve(one, root)) !== 'null') ??
        asSchema(branches[0]);
      return build(branch, root, word, depth);
    }
  }
  if (Array.isArray(schema.allOf)) {
    const merged = schema.allOf.map((one) => resolve(asSchema(one), root));
    return build(
      {
        type: 'object',
        properties: Object.assign({}, ...merged.map((one) => asSchema(one.properties))),
        required: merged.flatMap((one) => (Array.isArray(one.required) ? one.required : [])),
      },
      root,
      word,
      depth,
    );
  }
  switch (typeOf(schema)) {
    case 'object':
      return objectOf(schema, root, word, depth);
    case 'array':
      return arrayOf(schema, root, word, depth);
    case 'integer':
      return numberOf(schema, true);
    case 'number':
      return numberOf(schema, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'string':
      return stringOf(schema, word);
    default:
      // A schema that constrains nothing: any JSON will do.
      return word;
  }
}

function objectOf(schema: Schema, root: Schema, word: string, depth: number) {
  const properties = asSchema(schema.properties);
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const names = depth >= MAX_DEPTH ? [...required] : Object.keys(properties);
  for (const name of required) if (!names.includes(name)) names.push(name);
  return Object.fromEntries(
    names.map((name) => [name, build(asSchema(properties[name]), root, word, depth + 1)]),
  );
}

function arrayOf(schema: Schema, root: Schema, word: string, depth: number) {
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : Infinity;
  const count = Math.min(Math.max(minItems, depth >= MAX_DEPTH ? 0 : 1), maxItems);
  const items = asSchema(schema.items);
  return Array.from({ length: count }, () => build(items, root, word, depth + 1));
}

function numberOf(schema: Schema, integer: boolean): number {
  const bound = (key: string) => (typeof schema[key] === 'number' ? (schema[key] as number) : null);
  const step = bound('multipleOf') ?? (integer ? 1 : null);
  const low = bound('minimum') ?? (bound('exclusiveMinimum') ?? -Infinity) + (step ?? 0.5);
  const high = bound('maximum') ?? (bound('exclusiveMaximum') ?? Infinity) - (step ?? 0.5);
  let value = Math.min(Math.max(42, low), high);
  if (step !== null) {
    value = Math.ceil(value / step) * step;
    if (value > high) value -= step;
  }
  return integer ? Math.round(value) : value;
}

function stringOf(schema: Schema, word: string): string {
  const formats: Record<string, string> = {
    'date-time': '2026-01-01T00:00:00Z',
    date: '2026-01-01',
    time: '00:00:00Z',
    email: 'someone@example.com',
    uri: 'https://example.com/',
    url: 'https://example.com/',
    uuid: '00000000-0000-4000-8000-000000000000',
    ipv4: '192.0.2.1',
  };
  let text = (typeof schema.format === 'string' && formats[schema.format]) || word;
  if (typeof schema.minLength === 'number') text = text.padEnd(schema.minLength, '.');
  if (typeof schema.maxLength === 'number') text = text.slice(0, schema.maxLength);
  return text;
}
