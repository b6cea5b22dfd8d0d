/**
 * The gateway's logger. Keys never reach a log: every line is masked as a whole just before it is
 * written (`maskKeys`: whatever field, message, error stack, child binding or depth carries
 * key-like text), request lines carry the path with credential parameters' values removed, and
 * redaction covers the headers and fields a key could travel in, should anything log them.
 */
import pino, { type Logger } from 'pino';
import { maskKeys } from './shared/key-masking';

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'gateway' },
      redact: {
        paths: [
          'headers.authorization',
          'headers["x-api-key"]',
          'headers["x-goog-api-key"]',
          '*.headers.authorization',
          '*.headers["x-api-key"]',
          '*.headers["x-goog-api-key"]',
          'key',
          '*.key',
        ],
        censor: '[redacted]',
      },
      // The one place every line passes, already serialized: masking leaves JSON valid (a mask
      // holds no character JSON escapes) and catches what `formatters.log` would not see, such
      // as a child logger's bindings.
      hooks: { streamWrite: maskKeys },
    },
    destination,
  );
}

/**
 * Query parameters whose value is a credential, by whatever case or `[]` suffix they come with.
 * Only `key` is read as one (`?key=`); the others are names clients use elsewhere.
 */
const credentialParameters = new Set(['key', 'api_key', 'apikey', 'token', 'access_token']);

/**
 * The URL as it may be logged: path and query as sent, in order, but a credential parameter's
 * value is `[redacted]` and key-like text anywhere (a path segment, an id) is masked.
 */
export function loggablePath(url: URL): string {
  const query =
    url.search === '' ? '' : `?${url.search.slice(1).split('&').map(loggableParameter).join('&')}`;
  return maskKeys(url.pathname + query);
}

function loggableParameter(pair: string): string {
  const equals = pair.indexOf('=');
  if (equals === -1) return pair;
  const name = pair.slice(0, equals);
  // Written by hand: URLSearchParams would encode the marker as %5Bredacted%5D.
  return credentialParameters.has(parameterName(name)) ? `${name}=[redacted]` : pair;
}

/** `KEY`, `key[]`, `k%65y` and `key[0]` all name `key`. */
function parameterName(raw: string): string {
  let name = raw.replace(/\+/g, ' ');
  try {
    name = decodeURIComponent(name);
  } catch {
    // A malformed escape names no credential parameter; its value is still masked if key-like.
  }
  return name.replace(/(\[[^\]]*\])+$/, '').toLowerCase();
}
