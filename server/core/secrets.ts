/**
 * Masking of keys. The BFF holds full keys; these helpers make sure that what leaves it (API
 * answers, log lines, gateway error bodies passed on) carries at most a masked form.
 */
import { keyLikePattern as keyPattern } from '../../contract/key-pattern';

const ellipsis = '…';

/**
 * The masked form of a key (`sk-Ab3d…x9Yz`): the prefix and a short tail, middle elided. Short
 * values show less, so a mask never reveals most of a short secret.
 */
export function maskKey(key: string): string {
  const prefix = key.startsWith('sk-') ? 'sk-' : '';
  const rest = key.slice(prefix.length);
  if (rest.length >= 24) return `${prefix}${rest.slice(0, 4)}${ellipsis}${rest.slice(-4)}`;
  if (rest.length >= 12) return `${prefix}${ellipsis}${rest.slice(-2)}`;
  return `${prefix}${ellipsis}`;
}

/** Replaces only the exact keys given with their masks; other text is left exactly as is. */
export function maskKnownKeys(text: string, knownKeys: Iterable<string>): string {
  let result = text;
  for (const key of knownKeys) {
    if (key.length >= 8 && result.includes(key)) result = result.split(key).join(maskKey(key));
  }
  return result;
}

/**
 * Replaces anything that looks like a key with its mask, plus the exact keys given (which may
 * not follow the `sk-` shape).
 */
export function redactSecretText(text: string, knownKeys: Iterable<string> = []): string {
  return maskKnownKeys(text, knownKeys).replace(keyPattern, (match) => maskKey(match));
}

/** True when the text holds a key-like value or one of the given keys. */
export function containsSecret(text: string, knownKeys: Iterable<string> = []): boolean {
  for (const key of knownKeys) if (key.length >= 8 && text.includes(key)) return true;
  return new RegExp(keyPattern.source).test(text);
}

/**
 * Masks every string inside a JSON value, names of fields included: anything key-like, or with
 * `onlyKnownKeys` just the exact keys given (for a model's answer, which should pass unchanged).
 */
export function redactJson(
  value: unknown,
  knownKeys: Iterable<string> = [],
  options: { onlyKnownKeys?: boolean } = {},
): unknown {
  const keys = [...knownKeys];
  const mask = options.onlyKnownKeys
    ? (text: string) => maskKnownKeys(text, keys)
    : (text: string) => redactSecretText(text, keys);
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return mask(node);
    if (Array.isArray(node)) return node.map(walk);
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(
        Object.entries(node).map(([name, child]) => [mask(name), walk(child)]),
      );
    }
    return node;
  };
  return walk(value);
}

/** Query parameters that carry a key (`?key=`) or a credential by another name. */
const secretQueryParameters = new Set([
  'key',
  'api_key',
  'apikey',
  'token',
  'access_token',
  // An OpenID Connect authorization code, on the sign-in callback (sign-in/oidc.ts).
  'code',
]);

/** A request path fit for a log line: `?key=` values removed and key-like text masked. */
export function sanitizeUrlForLog(url: string): string {
  const questionMark = url.indexOf('?');
  if (questionMark === -1) return redactSecretText(url);
  const path = url.slice(0, questionMark);
  const query = url
    .slice(questionMark + 1)
    .split('&')
    .map((pair) => {
      const [name = '', ...valueParts] = pair.split('=');
      let decodedName = name;
      try {
        decodedName = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // A malformed escape is logged masked like any other text.
      }
      if (secretQueryParameters.has(decodedName.toLowerCase()) && valueParts.length > 0) {
        return `${name}=[redacted]`;
      }
      return pair;
    })
    .join('&');
  return redactSecretText(`${path}?${query}`);
}
