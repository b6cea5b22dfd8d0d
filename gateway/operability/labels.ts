/**
 * The label values the metrics use, each from a small fixed set. A raw path or an upstream's own
 * text never becomes a label: a path can carry a key (`/v1/sk-…`, `?key=…`), and every distinct
 * value is a new time series the scraper keeps forever.
 */
import { UPSTREAM_FAILURES, type UpstreamFailure } from '../providers/upstream-error';

/** The route families by name, as the requests counter labels them. */
export const ROUTE_NAMES = [
  'chat_completions',
  'messages',
  'messages_count_tokens',
  'gemini_generate',
  'gemini_count_tokens',
  'embeddings',
  'gemini_embed',
  'models',
  'model_endpoints',
  'balance',
  'key',
  'keys',
  'admin_keys',
  'generation',
  'activity',
  'healthz',
  'readyz',
  'metrics',
  'other',
] as const;

export type RouteName = (typeof ROUTE_NAMES)[number];

/** The public form a route speaks, or `none` for the routes that are not inference. */
export type FormLabel = 'chat_completions' | 'messages' | 'gemini' | 'embeddings' | 'none';

const exactRoutes = new Map<string, RouteName>([
  ['/v1/chat/completions', 'chat_completions'],
  ['/v1/messages', 'messages'],
  ['/v1/messages/count_tokens', 'messages_count_tokens'],
  ['/v1/embeddings', 'embeddings'],
  ['/v1/models', 'models'],
  ['/v1/balance', 'balance'],
  ['/v1/key', 'key'],
  ['/v1/keys', 'keys'],
  ['/admin/v1/keys', 'admin_keys'],
  ['/v1/generation', 'generation'],
  ['/v1/generations', 'generation'],
  ['/v1/activity', 'activity'],
  ['/healthz', 'healthz'],
  ['/readyz', 'readyz'],
  ['/metrics', 'metrics'],
]);

// The same shapes the route families register (routes/gemini.ts, model-endpoints.ts, keys.ts,
// admin-keys.ts); a path none of them matches is `other`.
const GEMINI_METHOD = /^\/(?:v1beta|v1)\/models\/[^?#]+:(?<method>[A-Za-z]*)$/;
const MODEL_ENDPOINTS = /^\/v1\/models\/[^/]+\/[^/]+\/endpoints$/;
const KEY_ITEM = /^\/v1\/keys\/[^/]+(?:\/(?:rotate|events))?$/;
const ADMIN_KEY_ITEM = /^\/admin\/v1\/keys\/[^/]+(?:\/(?:rotate|events|recharge|credit))?$/;

/** The route family a request path belongs to; never the path itself. */
export function routeNameOf(pathname: string): RouteName {
  const exact = exactRoutes.get(pathname);
  if (exact) return exact;
  const gemini = GEMINI_METHOD.exec(pathname);
  if (gemini) {
    const method = gemini.groups?.method;
    if (method === 'generateContent' || method === 'streamGenerateContent')
      return 'gemini_generate';
    if (method === 'countTokens') return 'gemini_count_tokens';
    if (method === 'embedContent' || method === 'batchEmbedContents') return 'gemini_embed';
    return 'other';
  }
  if (MODEL_ENDPOINTS.test(pathname)) return 'model_endpoints';
  if (KEY_ITEM.test(pathname)) return 'keys';
  if (ADMIN_KEY_ITEM.test(pathname)) return 'admin_keys';
  return 'other';
}

export function formOf(route: RouteName): FormLabel {
  switch (route) {
    case 'chat_completions':
      return 'chat_completions';
    case 'messages':
    case 'messages_count_tokens':
      return 'messages';
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
