/**
 * Logging with pino: one line per request with its request id, and redaction configured here,
 * once. Keys must never reach a log: request lines carry sanitized paths only, and the
 * redaction paths and hooks below are a second guard for anything logged by mistake.
 */
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { redactSecretText, sanitizeUrlForLog } from './secrets';

/** Field paths whose values are keys or carry them (pino's redact syntax). */
export const redactedPaths = [
  'key',
  '*.key',
  'apiKey',
  '*.apiKey',
  'api_key',
  '*.api_key',
  'profiles',
  '*.profiles',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["x-goog-api-key"]',
  'headers.cookie',
  '*.headers.authorization',
  '*.headers["x-api-key"]',
  '*.headers["x-goog-api-key"]',
];

/** Errors in logs: name, message and stack, with key-like text masked. */
function serializeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: redactSecretText(String(error)) };
  const code = (error as { code?: unknown }).code;
  return {
    type: error.name,
    message: redactSecretText(error.message),
    stack: error.stack ? redactSecretText(error.stack) : undefined,
    code: typeof code === 'string' ? code : undefined,
  };
}

export const workbenchLoggerOptions: LoggerOptions = {
  name: 'workbench',
  redact: { paths: redactedPaths, censor: '[redacted]' },
  serializers: { err: serializeError, error: serializeError },
  hooks: {
    // Strings passed as messages are masked too: a key can hide in an interpolated message.
    logMethod(args, method) {
      const masked = args.map((argument) =>
        typeof argument === 'string' ? redactSecretText(argument) : argument,
      ) as Parameters<typeof method>;
      method.apply(this, masked);
    },
  },
};

/** The logger the start script and tests use; `destination` lets tests capture the lines. */
export function createWorkbenchLogger(
  options: { level?: string; destination?: DestinationStream } = {},
): Logger {
  return pino({ ...workbenchLoggerOptions, level: options.level ?? 'info' }, options.destination);
}

/**
 * The app's own logger, derived from whatever logger it was given, with the same redaction
 * (so a plain `pino()` passed in still cannot print a key in a known field).
 */
export function workbenchChildLogger(logger: Logger): Logger {
  return logger.child(
    { component: 'bff' },
    {
      redact: { paths: redactedPaths, censor: '[redacted]' },
      serializers: { err: serializeError, error: serializeError },
    },
  );
}

/** Assigns a request id (also sent back as `X-Request-Id`) and logs one line when done. */
export function requestLogger(logger: Logger): RequestHandler {
  return (request, response, next) => {
    const requestId = randomUUID();
    response.locals.requestId = requestId;
    response.setHeader('X-Request-Id', requestId);
    const started = performance.now();
    let logged = false;
    const writeLine = () => {
      if (logged) return;
      logged = true;
      const status = response.statusCode;
      const line = {
        request_id: requestId,
        method: request.method,
        path: sanitizeUrlForLog(request.originalUrl),
        status,
        duration_ms: Math.round(performance.now() - started),
        cf_ray: typeof response.locals.cfRay === 'string' ? response.locals.cfRay : undefined,
        // The browser left before the answer was complete (Stop, or a closed tab).
        client_closed: response.writableFinished ? undefined : true,
      };
      if (status >= 500) logger.error(line, 'request');
      else logger.info(line, 'request');
    };
    response.on('finish', writeLine);
    response.on('close', writeLine);
    next();
  };
}
