/**
 * The gateway's logger. Keys never reach a log: request lines carry the path without its query's
 * `key`, and redaction covers the headers and fields a key could travel in, should anything log
 * them by mistake.
 */
import pino, { type Logger } from 'pino';

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
    },
    destination,
  );
}

/** The URL as it may be logged: the `key` query parameter is removed, never shown. */
export function loggablePath(url: URL): string {
  if (!url.searchParams.has('key')) return url.pathname + url.search;
  const rest = new URLSearchParams(url.search);
  rest.delete('key');
  // Written by hand: URLSearchParams would encode the marker as %5Bredacted%5D.
  return `${url.pathname}?key=[redacted]${rest.size > 0 ? `&${rest.toString()}` : ''}`;
}
