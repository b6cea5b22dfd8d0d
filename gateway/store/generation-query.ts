/**
 * The SQL of generation listings and activity, shared by both engines: written with named
 * parameters (`@name`, SQLite's own form) and turned into positional ones for PostgreSQL.
 */
import type { GenerationQuery, GenerationScope } from './store';

export type Parameters = Record<string, string | number>;

/** The WHERE terms and parameters of a scope (one key, or an account's tree). */
export function scopeTerms(scope: GenerationScope): { terms: string[]; params: Parameters } {
  const terms: string[] = [];
  const params: Parameters = {};
  // One term, so the planner has one index to read in order (a key's own is the narrower).
  if (scope.keyId !== undefined) {
    terms.push('key_id = @keyId');
    params.keyId = scope.keyId;
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
 * the same with a million records as with ten. Exported so a test can check the query plan.
 */
export function generationListQuery(query: GenerationQuery): { sql: string; params: Parameters } {
  const { terms, params } = scopeTerms(query);
  const values: Parameters = { ...params, limit: query.limit };
  if (query.model !== undefined) {
    terms.push('model = @model');
    values.model = query.model;
  }
  if (query.outcome !== undefined) {
    terms.push('outcome = @outcome');
    values.outcome = query.outcome;
  }
  if (query.from !== undefined) {
    terms.push('created_at >= @from');
    values.from = query.from;
  }
  if (query.to !== undefined) {
    terms.push('created_at < @to');
    values.to = query.to;
  }
  if (query.after !== undefined) {
    // The first term bounds the index range; the second drops what the last page already gave.
    terms.push('created_at <= @afterTime AND (created_at < @afterTime OR seq < @afterSeq)');
    values.afterTime = query.after.createdAt;
    values.afterSeq = query.after.seq;
  }
  return {
    sql: `SELECT * FROM generations WHERE ${terms.join(' AND ')}
      ORDER BY created_at DESC, seq DESC LIMIT @limit`,
    params: values,
  };
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

/** Named parameters (`@name`) as PostgreSQL's positional ones (`$1`), with their values. */
export function toPositional(
  sql: string,
  params: Parameters,
): { text: string; values: Array<string | number> } {
  const names: string[] = [];
  const text = sql.replace(/@(\w+)/g, (_, name: string) => {
    if (!(name in params)) throw new Error(`No value for the SQL parameter @${name}.`);
    let index = names.indexOf(name);
    if (index === -1) index = names.push(name) - 1;
    return `$${index + 1}`;
  });
  return { text, values: names.map((name) => params[name]!) };
}
