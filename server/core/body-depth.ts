/**
 * A bound on how deeply a JSON request body nests. Parsing a deep body is fine, but everything
 * after it that recurses (JSON.stringify when the body is sent on to the gateway, a schema, a
 * log) overflows the stack on one nested 200,000 levels deep, and the request ends in a 500.
 */
import type { RequestHandler } from 'express';
import { validationFailure } from './errors';

/** Deeper than any real tool schema needs; far below what overflows the stack. */
export const maxBodyDepth = 64;

interface Visit {
  value: unknown;
  depth: number;
  /** The key or index under the parent; null for the body itself. */
  segment: string | number | null;
  parent: Visit | null;
}

function pathOf(visit: Visit): Array<string | number> {
  const path: Array<string | number> = [];
  for (let current: Visit | null = visit; current; current = current.parent) {
    if (current.segment !== null) path.unshift(current.segment);
  }
  return path;
}

/**
 * The path to a value nested deeper than `maxDepth` (the body itself is depth 1), or null.
 * Walks with its own stack, never by recursion, so a bomb cannot overflow this either.
 */
export function findTooDeep(value: unknown, maxDepth: number): Array<string | number> | null {
  const pending: Visit[] = [{ value, depth: 1, segment: null, parent: null }];
  for (let visit = pending.pop(); visit; visit = pending.pop()) {
    if (visit.value === null || typeof visit.value !== 'object') continue;
    if (visit.depth > maxDepth) return pathOf(visit);
    const entries: Array<[string | number, unknown]> = Array.isArray(visit.value)
      ? visit.value.map((item, index) => [index, item])
      : Object.entries(visit.value);
    for (const [segment, child] of entries) {
      pending.push({ value: child, depth: visit.depth + 1, segment, parent: visit });
    }
  }
  return null;
}

/**
 * The field to name for a too-deep path: its leading keys up to the first array index, at most
 * two (the chat body keeps its fields under `request`), so a bomb in `tools` is named
 * `request.tools`, not by a path 64 levels long.
 */
export function fieldOfDeepPath(path: Array<string | number>): string {
  const names: string[] = [];
  for (const segment of path) {
    if (typeof segment === 'number' || names.length === 2) break;
    names.push(segment);
  }
  return names.length > 0 ? names.join('.') : 'body';
}

/** After the JSON parser: a body nested deeper than `maxDepth` is a 400 naming its field. */
export function bodyDepthLimit(maxDepth = maxBodyDepth): RequestHandler {
  return (request, _response, next) => {
    const tooDeep = findTooDeep(request.body, maxDepth);
    if (!tooDeep) return next();
    next(validationFailure(fieldOfDeepPath(tooDeep), `is nested deeper than ${maxDepth} levels`));
  };
}
