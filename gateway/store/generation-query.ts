/**
 * The SQL of generation listings and activity, shared by both engines: written with named
 * parameters (`@name`, SQLite's own form) and turned into SqlDatabase's `?` placeholders.
 */
import type { GenerationQuery, GenerationScope } from './store';

export type Parameters = Record<string, string | number>;

/** The keys of a key scope: the key, then the keys it replaced (none for an account's tree). */
function scopeKeys(scope: GenerationScope): string[] {
  return scope.keyId === undefined ? [] : [scope.keyId, ...(scope.predecessorIds ?? [])];
}

/** The WHERE terms and parameters of a scope (one key and those it replaced, or an account's tree). */
export function scopeTerms(scope: GenerationScope): { terms: string[]; params: Parameters } {
  const terms: string[] = [];
  const params: Parameters = {};
  const keys = scopeKeys(scope);
  // One term, so the planner has one index to read in order (a key's own is the narrower).
  if (keys.length === 1) {
    terms.push('key_id = @keyId');
    params.keyId = keys[0]!;
  } else if (keys.length > 1) {
    keys.forEach((keyId, index) => (params[`key${index}`] = keyId));
    terms.push(`key_id IN (${keys.map((_, index) => `@key${index}`).join(', ')})`);
  } else if (scope.accountId !== undefined) {
    terms.push('account_id = @accountId');
    params.accountId = scope.accountId;
  }
  if (terms.length === 0) throw new Error('A generation query needs a keyId or an accountId.');
  return { terms, params };
}

/**
 * The SQL of a generation listing. Every shape it takes reads one index in order
 * (`generations_by_key` or `generations_by_account`: scope, then time, then `seq`), so a page costs
 * the same with a million records as with ten. A key that replaced others reads each key's range
 * in order, at most a page from each, and merges those few rows. Exported so a test can check the
 * query plan.
 */
export function generationListQuery(query: GenerationQuery): { sql: string; params: Parameters } {
  const filters = filterTerms(query);
  const keys = scopeKeys(query);
  const params: Parameters = { ...filters.params, limit: query.limit };
  const range = (scopeTerm: string) =>
    `SELECT * FROM generations WHERE ${[scopeTerm, ...filters.terms].join(' AND ')}
      ORDER BY created_at DESC, seq DESC LIMIT @limit`;
  if (keys.length <= 1) {
    const scope = scopeTerms(query);
    return { sql: range(scope.terms[0]!), params: { ...params, ...scope.params } };
  }
  const branches = keys.map((keyId, index) => {
    params[`key${index}`] = keyId;
    return `SELECT * FROM (${range(`key_id = @key${index}`)}) AS branch${index}`;
  });
  return {
    sql: `SELECT * FROM (${branches.join(' UNION ALL ')}) AS lineage
      ORDER BY created_at DESC, seq DESC LIMIT @limit`,
    params,
  };
}

/** The terms of a listing's filters (model, outcome, time, position), whatever its scope. */
function filterTerms(query: GenerationQuery): { terms: string[]; params: Parameters } {
  const terms: string[] = [];
  const params: Parameters = {};
  if (query.model !== undefined) {
    terms.push('model = @model');
    params.model = query.model;
  }
  if (query.sessionId !== undefined) {
    terms.push('session_id = @sessionId');
    params.sessionId = query.sessionId;
  }
  if (query.batchId !== undefined) {
    terms.push('batch_id = @batchId');
    params.batchId = query.batchId;
  }
  if (query.outcome !== undefined) {
    terms.push('outcome = @outcome');
    params.outcome = query.outcome;
  }
  if (query.from !== undefined) {
    terms.push('created_at >= @from');
    params.from = query.from;
  }
  if (query.to !== undefined) {
    terms.push('created_at < @to');
    params.to = query.to;
  }
  if (query.after !== undefined) {
    // The first term bounds the index range; the second drops what the last page already gave.
    terms.push('created_at <= @afterTime AND (created_at < @afterTime OR seq < @afterSeq)');
    params.afterTime = query.after.createdAt;
    params.afterSeq = query.after.seq;
  }
  return { terms, params };
}

/**
 * Per-day totals of a scope, for days `fromDay`..`toDay` inclusive. `collate` orders models by
 * their bytes where the engine's default collation would not (PostgreSQL: ` COLLATE "C"`).
 */
export function activityQuery(
  scope: GenerationScope,
  fromDay: number,
  toDay: number,
  collate = '',
): { sql: string; params: Parameters } {
  const { terms, params } = scopeTerms(scope);
  return {
    sql: `SELECT day, model, SUM(requests) AS requests, SUM(prompt_tokens) AS prompt_tokens,
        SUM(completion_tokens) AS completion_tokens, SUM(cost_nanos) AS cost_nanos
      FROM generation_days WHERE ${terms.join(' AND ')} AND day BETWEEN @fromDay AND @toDay
      GROUP BY day, model ORDER BY day, model${collate}`,
    params: { ...params, fromDay, toDay },
  };
}

/**
 * The agent sessions of a scope with records since `from`, the latest active first. A session's
 * start is its first request's start: the record's time (its end) less its latency.
 */
export function sessionsQuery(
  scope: GenerationScope,
  from: number,
  limit: number,
): { sql: string; params: Parameters } {
  const { terms, params } = scopeTerms(scope);
  return {
    sql: `SELECT session_id, COUNT(*) AS requests,
        MIN(created_at - latency_ms / 1000.0) AS started_at, MAX(created_at) AS ended_at,
        SUM(prompt_tokens) AS prompt_tokens, SUM(completion_tokens) AS completion_tokens,
        SUM(cache_read_tokens) AS cache_read_tokens,
        SUM(CASE WHEN cache_read_tokens > 0 THEN 1 ELSE 0 END) AS cache_hits,
        SUM(cost_nanos) AS cost_nanos
      FROM generations
      WHERE ${terms.join(' AND ')} AND created_at >= @from AND session_id IS NOT NULL
      GROUP BY session_id ORDER BY MAX(created_at) DESC, MAX(seq) DESC LIMIT @limit`,
    params: { ...params, from, limit },
  };
}

/**
 * Named parameters (`@name`) as SqlDatabase's `?` placeholders, with their values in the order
 * they stand (a name used twice is given twice).
 */
export function toPlaceholders({ sql, params }: { sql: string; params: Parameters }): {
  sql: string;
  values: Array<string | number>;
} {
  const values: Array<string | number> = [];
  const text = sql.replace(/@(\w+)/g, (_, name: string) => {
    if (!(name in params)) throw new Error(`No value for the SQL parameter @${name}.`);
    values.push(params[name]!);
    return '?';
  });
  return { sql: text, values };
}
