/**
 * The generation record, defined once. For each field: the type of its value, its column (whose
 * type on each engine follows from its `kind`), its name on the gateway's wire, and what a
 * request's own record does to it when it replaces the one written when its lease ran out.
 *
 * Derived from this table: the store's `GenerationRow`, the writer's statements and both stores'
 * row mapping (gateway/store/generation-columns.ts), `GET /v1/generation(s)` (its schema in
 * generation-record-wire.ts, its mapping in gateway/billing/generation-records.ts) and the
 * workbench's usage figures (`recordUsageShape`, `usageOf`). docs/extending.md shows adding a
 * field. Plain data without zod: the record-writing thread loads it.
 */

export type GenerationOutcome = 'completed' | 'ended_early';

/**
 * One try of one provider before the answer started: its HTTP status, or how it failed; or a
 * provider not tried, and why (`cooling_down`, and the request's preferences: `ignored`,
 * `not_in_only`, `over_max_price`, `no_fallbacks`). `model` is set when several models could
 * answer (fallback models, an alias): the one this attempt was for.
 */
export type GenerationAttempt = {
  provider: string;
  status: number | string;
  latencyMs: number;
  model?: string;
};

/** What the gateway dropped or changed to reach the provider (translation-report.ts). */
export type RecordTranslation = { dropped: string[]; adjusted: string[] };

/** How a value is stored; each kind has one column type per engine. */
export type FieldKind = 'text' | 'integer' | 'real' | 'flag' | 'json';

export const columnTypes = {
  text: { sqlite: 'TEXT', postgres: 'text' },
  integer: { sqlite: 'INTEGER', postgres: 'bigint' },
  real: { sqlite: 'REAL', postgres: 'double precision' },
  // 0/1 in SQLite; JSON is text there.
  flag: { sqlite: 'INTEGER', postgres: 'boolean' },
  json: { sqlite: 'TEXT', postgres: 'jsonb' },
} as const satisfies Record<FieldKind, { sqlite: string; postgres: string }>;

/**
 * What a request's own record does to a field of the record written when its lease ran out, which
 * it replaces: `kept` (whose and when: the record keeps its place in the listings), `replaced`
 * (what was served and charged), or `reset` by the writer (settlement starts over).
 */
export type OnReplace = 'kept' | 'replaced' | 'reset';

export type FieldSpec = {
  column: string;
  kind: FieldKind;
  /**
   * Its name on the gateway's wire (`GET /v1/generation`; its schema in generation-record-wire.ts);
   * absent: never sent. `converted`: the wire value is not the stored one (the gateway converts it).
   */
  wire?: { name: string; converted?: true };
  onReplace: OnReplace;
  /** Set: the field may be left out of a record written, and is stored and sent as this. */
  absent?: unknown;
  /** A token count the workbench shows with the record (`recordUsageShape`). */
  usage?: true;
};

declare const valueType: unique symbol;
/** A field's spec, carrying the type of its value. */
export type Field<T, S extends FieldSpec = FieldSpec> = S & { readonly [valueType]?: T };

const field =
  <T>() =>
  <const S extends FieldSpec>(spec: S) =>
    spec as Field<T, S>;

/** A token count of the prompt or the completion: 0 when absent, sent under its column's name. */
const usage = <const C extends string>(column: C) =>
  field<number>()({
    column,
    kind: 'integer',
    wire: { name: column },
    onReplace: 'replaced',
    absent: 0,
    usage: true,
  });

/** The fields, in the order the wire sends them. */
export const generationFields = {
  /** The request's trace id (its `cf-ray`). */
  id: field<string>()({
    column: 'id',
    kind: 'text',
    wire: { name: 'id' },
    onReplace: 'kept',
  }),
  keyId: field<string>()({ column: 'key_id', kind: 'text', onReplace: 'kept' }),
  /** The key whose money pays: the key itself, or a shared child's parent. */
  fundingKeyId: field<string>()({ column: 'funding_key_id', kind: 'text', onReplace: 'kept' }),
  /** The model that answered (the request's, or a fallback or an alias's member). */
  model: field<string>()({
    column: 'model',
    kind: 'text',
    wire: { name: 'model' },
    onReplace: 'kept',
  }),
  /**
   * The id the client named when it was not the model that answered: an alias, a preset, or a
   * model whose fallback answered; null otherwise.
   */
  requestedModel: field<string | null>()({
    column: 'requested_model',
    kind: 'text',
    wire: { name: 'requested_model' },
    onReplace: 'kept',
    absent: null,
  }),
  provider: field<string>()({
    column: 'provider',
    kind: 'text',
    wire: { name: 'provider' },
    onReplace: 'replaced',
  }),
  /** The model name the provider was asked for. */
  upstreamModel: field<string>()({
    column: 'upstream_model',
    kind: 'text',
    wire: { name: 'upstream_model' },
    onReplace: 'replaced',
  }),
  form: field<string>()({
    column: 'form',
    kind: 'text',
    wire: { name: 'form' },
    onReplace: 'kept',
  }),
  streamed: field<boolean>()({
    column: 'streamed',
    kind: 'flag',
    wire: { name: 'streamed' },
    onReplace: 'kept',
  }),
  promptTokens: field<number>()({
    column: 'prompt_tokens',
    kind: 'integer',
    wire: { name: 'prompt_tokens' },
    onReplace: 'replaced',
  }),
  completionTokens: field<number>()({
    column: 'completion_tokens',
    kind: 'integer',
    wire: { name: 'completion_tokens' },
    onReplace: 'replaced',
  }),
  /**
   * Of `promptTokens`, those the upstream read from and wrote to its prompt cache, priced at the
   * model's `input_cache_read` / `input_cache_write` where the providers file sets them.
   */
  cacheReadTokens: usage('cache_read_tokens'),
  cacheWriteTokens: usage('cache_write_tokens'),
  /** Of `cacheWriteTokens`, those to a one-hour cache entry, priced at `input_cache_write_1h`. */
  cacheWriteHourTokens: usage('cache_write_1h_tokens'),
  /** Of `completionTokens`, those the model spent reasoning, as the provider reported them. */
  reasoningTokens: usage('reasoning_tokens'),
  /** What the key was charged, in nanos; in USD on the wire. */
  costNanos: field<number>()({
    column: 'cost_nanos',
    kind: 'integer',
    wire: { name: 'cost_usd', converted: true },
    onReplace: 'replaced',
  }),
  finishReason: field<string | null>()({
    column: 'finish_reason',
    kind: 'text',
    wire: { name: 'finish_reason' },
    onReplace: 'replaced',
  }),
  /** `completed`, or `ended_early` when the client left or the provider failed mid-answer. */
  outcome: field<GenerationOutcome>()({
    column: 'outcome',
    kind: 'text',
    wire: { name: 'outcome' },
    onReplace: 'replaced',
  }),
  settled: field<boolean>()({
    column: 'settled',
    kind: 'flag',
    wire: { name: 'settlement', converted: true },
    onReplace: 'reset',
  }),
  /** Unix seconds. */
  createdAt: field<number>()({
    column: 'created_at',
    kind: 'integer',
    wire: { name: 'created_at' },
    onReplace: 'kept',
  }),
  settledAt: field<number | null>()({
    column: 'settled_at',
    kind: 'integer',
    wire: { name: 'settled_at' },
    onReplace: 'reset',
  }),
  latencyMs: field<number>()({
    column: 'latency_ms',
    kind: 'real',
    wire: { name: 'latency_ms' },
    onReplace: 'replaced',
  }),
  /**
   * The time the gateway itself added, in milliseconds to 0.01: the latency minus the waits on the
   * provider (and on a client reading a stream slowly); null on records from before it was kept.
   */
  overheadMs: field<number | null>()({
    column: 'overhead_ms',
    kind: 'real',
    wire: { name: 'overhead_ms' },
    onReplace: 'replaced',
    absent: null,
  }),
  /**
   * The agent session the request belongs to, as the client named it (`X-Claude-Code-Session-Id`,
   * Codex's `session_id`, `X-Session-Id`…; docs/agents.md); null when it named none.
   */
  sessionId: field<string | null>()({
    column: 'session_id',
    kind: 'text',
    wire: { name: 'session_id' },
    onReplace: 'kept',
    absent: null,
  }),
  /**
   * The batch the request was a line of (docs/batches.md); null for an interactive request.
   * `replaced`: a line run again after its instance died replaces the closure, which had none.
   */
  batchId: field<string | null>()({
    column: 'batch_id',
    kind: 'text',
    wire: { name: 'batch_id' },
    onReplace: 'replaced',
    absent: null,
  }),
  /** Every provider attempt before the answer started, the answering one last. */
  attempts: field<GenerationAttempt[]>()({
    column: 'attempts',
    kind: 'json',
    wire: { name: 'attempts', converted: true },
    onReplace: 'replaced',
  }),
  /** The provider reported no usage (or none for what it delivered): the gateway counted. */
  usageEstimated: field<boolean>()({
    column: 'usage_estimated',
    kind: 'flag',
    wire: { name: 'usage_estimated' },
    onReplace: 'replaced',
  }),
  /**
   * The upstream's usage cost more than was reserved; the charge was capped at the reservation
   * (or at what remained of it once its lease ran out).
   */
  chargeCapped: field<boolean>()({
    column: 'charge_capped',
    kind: 'flag',
    wire: { name: 'charge_capped' },
    onReplace: 'replaced',
  }),
  /**
   * What the gateway dropped (dotted paths of the request) or changed (`max_tokens=32000->8192`)
   * to reach the provider; null when nothing. The answer's `x-gateway-dropped-params` and
   * `x-gateway-adjusted-params` headers say the same.
   */
  translation: field<RecordTranslation | null>()({
    column: 'translation',
    kind: 'json',
    wire: { name: 'translation' },
    onReplace: 'replaced',
    absent: null,
  }),
};

type Fields = typeof generationFields;
export type GenerationFieldName = keyof Fields;
type ValueOf<F> = F extends { readonly [valueType]?: infer T } ? T : never;
type MayBeAbsent<K extends GenerationFieldName> = Fields[K] extends { absent: unknown }
  ? true
  : false;

/** A record's values, by field name; a field with an `absent` value may be left out. */
export type GenerationValues = {
  -readonly [K in GenerationFieldName as MayBeAbsent<K> extends true ? never : K]: ValueOf<
    Fields[K]
  >;
} & {
  -readonly [K in GenerationFieldName as MayBeAbsent<K> extends true ? K : never]?: ValueOf<
    Fields[K]
  >;
};

/** Every field with its spec, in the definition's order. */
export const generationFieldList = Object.entries(generationFields) as Array<
  [GenerationFieldName, FieldSpec]
>;

/** The fields sent on the wire. */
export type WireFieldName = {
  [K in GenerationFieldName]: Fields[K] extends { wire: object } ? K : never;
}[GenerationFieldName];
/** A field's name on the wire. */
export type WireNameOf<K extends GenerationFieldName> = Fields[K] extends {
  wire: { name: infer N extends string };
}
  ? N
  : never;

/** The fields whose wire value the gateway converts (USD from nanos, and so on). */
type ConvertedName = {
  [K in GenerationFieldName]: Fields[K] extends { wire: { converted: true } } ? K : never;
}[GenerationFieldName];

/**
 * A record as the gateway sends it: every field with a wire name, in the definition's order, as
 * stored (its `absent` value when left out) or as `convert` makes it.
 */
export function generationValuesToWire(
  values: GenerationValues,
  convert: { [K in ConvertedName]: (value: ValueOf<Fields[K]>) => unknown },
): Record<string, unknown> {
  const wire: Record<string, unknown> = {};
  for (const [name, spec] of generationFieldList) {
    if (!spec.wire) continue;
    const stored = (values as Record<string, unknown>)[name];
    const value = stored ?? ('absent' in spec ? spec.absent : stored);
    const converter = (convert as Record<string, ((value: unknown) => unknown) | undefined>)[name];
    wire[spec.wire.name] = converter ? converter(value) : value;
  }
  return wire;
}

/** The record's token counts besides prompt and completion (each `usage(…)` in the table). */
export type UsageName = {
  [K in GenerationFieldName]: Fields[K] extends { usage: true } ? K : never;
}[GenerationFieldName];
/** The wire names of those counts. */
export type UsageWireName = WireNameOf<UsageName>;

const usageFields = generationFieldList.filter(([, spec]) => spec.usage);
/** The names of the record's token counts besides prompt and completion, in the table's order. */
export const usageFieldNames = usageFields.map(([name]) => name) as UsageName[];
/** Their names on the wire. */
export const usageWireNames = usageFields.map(([, spec]) => spec.wire!.name) as UsageWireName[];

/** Every one of those counts at 0: the usage of a record that reports none of them. */
export const noUsage = Object.fromEntries(usageFieldNames.map((name) => [name, 0])) as Record<
  UsageName,
  number
>;

/** The token counts of a record as the gateway sent it, 0 for one it left out. */
export function usageOf(
  record: Partial<Record<UsageWireName, number>>,
): Record<UsageWireName, number> {
  return Object.fromEntries(usageWireNames.map((name) => [name, record[name] ?? 0])) as Record<
    UsageWireName,
    number
  >;
}
