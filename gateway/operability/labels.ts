/**
 * The label values the metrics use, each from a small fixed set. A raw path or an upstream's own
 * text never becomes a label: a path can carry a key (`/v1/sk-…`, `?key=…`), and every distinct
 * value is a new time series the scraper keeps forever.
 */
import { UPSTREAM_FAILURES, type UpstreamFailure } from '../providers/upstream-error';
import type { RouteFamily } from '../routes/route-doc';

/**
 * The `route` label values: each documented route names its own (`metricsRoute` in
 * routes/route-doc.ts, checked against this list by the compiler), and a request no documented
 * route serves is `other`.
 */
export const ROUTE_NAMES = [
  'chat_completions',
  'messages',
  'messages_count_tokens',
  'responses',
  'responses_input_tokens',
  'gemini_generate',
  'gemini_count_tokens',
  'gemini_embed',
  'embeddings',
  'models',
  'model_endpoints',
  'model_endpoint_stats',
  'balance',
  'key',
  'keys',
  'admin_keys',
  'admin_presets',
  'webhooks',
  'admin_webhooks',
  'generation',
  'files',
  'batches',
  'activity',
  'healthz',
  'readyz',
  'metrics',
  'openapi',
  'other',
] as const;

export type RouteName = (typeof ROUTE_NAMES)[number];

/** The public form a route speaks, or `none` for the routes that are not inference. */
export type FormLabel =
  'chat_completions' | 'messages' | 'responses' | 'gemini' | 'embeddings' | 'none';

/** How a request is labelled: by the operations the router matched it to (Router.match). */
export type RouteLabeller = (operationIds: readonly string[], pathname: string) => RouteName;

/**
 * The `route` label of a request, from the route list the router was built from: the matched
 * operation's `metricsRoute`. One registration may serve several operations (the Gemini form's
 * methods share a pattern); then it is the one whose path template fits the path. Nothing
 * matched (a 404, a 405, a form's own fallback), or no template fits: `other`, never the path.
 */
export function routeLabeller(families: readonly RouteFamily[]): RouteLabeller {
  const operations = new Map<string, { route: RouteName; fits: RegExp }>();
  for (const family of families) {
    for (const doc of family.routes) {
      operations.set(doc.operationId, { route: doc.metricsRoute, fits: templatePattern(doc.path) });
    }
  }
  return (operationIds, pathname) => {
    if (operationIds.length === 1) return operations.get(operationIds[0]!)?.route ?? 'other';
    for (const id of operationIds) {
      const operation = operations.get(id);
      if (operation?.fits.test(pathname)) return operation.route;
    }
    return 'other';
  };
}

/** A path template (`/v1/responses/{id}`) as a pattern, each parameter any text but `?` and `#`. */
function templatePattern(template: string): RegExp {
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(
    `^${template
      .split(/\{[^}]+\}/)
      .map(literal)
      .join('[^?#]+')}$`,
  );
}

export function formOf(route: RouteName): FormLabel {
  switch (route) {
    case 'chat_completions':
      return 'chat_completions';
    case 'messages':
    case 'messages_count_tokens':
      return 'messages';
    case 'responses':
    case 'responses_input_tokens':
      return 'responses';
    case 'gemini_generate':
    case 'gemini_count_tokens':
    case 'gemini_embed':
      return 'gemini';
    case 'embeddings':
      return 'embeddings';
    default:
      return 'none';
  }
}

/** How an upstream attempt ended, as the attempts counter labels it. */
export type AttemptOutcome =
  '1xx' | '2xx' | '3xx' | '4xx' | '5xx' | 'cooling_down' | UpstreamFailure | 'other';

const failureKinds = new Set<string>(['cooling_down', ...UPSTREAM_FAILURES]);

/**
 * An attempt's recorded status (pipeline/inference-pipeline.ts): an HTTP status becomes its
 * class; a failure kind (providers/upstream-error.ts, or `cooling_down` for a skipped provider)
 * stays as it is; anything else is `other`.
 */
export function attemptOutcomeOf(status: number | string): AttemptOutcome {
  if (typeof status === 'number') {
    const kind = Math.floor(status / 100);
    return kind >= 1 && kind <= 5 ? (`${kind}xx` as AttemptOutcome) : 'other';
  }
  return failureKinds.has(status) ? (status as AttemptOutcome) : 'other';
}
