/**
 * What every route family needs: the gateway's parts, and a wrapper that writes any thrown error
 * in the family's own public shape (with `Retry-After` where a retry helps).
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Catalog } from '../catalog/catalog';
import type { Ledger } from '../billing/ledger';
import type { GatewayConfig } from '../config';
import { toGatewayError, type GatewayError } from '../errors';
import type { RouteContext, RouteHandler } from '../http/router';
import { sendJson } from '../http/respond';
import type { KeyRegistry } from '../keys/key-registry';
import type { InferencePipeline, InferenceRun } from '../pipeline/inference-pipeline';
import type { CanonicalRequest } from '../canonical/model';
import type { KeyRow } from '../store/store';
import type { GatewayStore } from '../store/store';

export type GatewayParts = {
  config: GatewayConfig;
  store: GatewayStore;
  catalog: Catalog;
  registry: KeyRegistry;
  ledger: Ledger;
  pipeline: InferencePipeline;
  logger: Logger;
};

/** Writes a GatewayError as one public form's error body. */
export type ErrorWriter = (
  error: GatewayError,
  context: RouteContext,
) => { status?: number; body: unknown };

export function withErrors(writeError: ErrorWriter, handler: RouteHandler): RouteHandler {
  return async (context) => {
    try {
      await handler(context);
    } catch (thrown) {
      // The client left: there is nobody to answer, and nothing failed on our side (the
      // pipeline has already recorded what was delivered).
      if (context.response.destroyed) return;
      const error = toGatewayError(thrown);
      // Kept for the request's log line; the client sees only the public message.
      if (error.status >= 500) context.failure = thrown;
      sendError(context.response, error, writeError(error, context));
    }
  };
}

export function sendError(
  response: ServerResponse,
  error: GatewayError,
  written: { status?: number; body: unknown },
): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined)
    headers['retry-after'] = String(error.retryAfterSeconds);
  sendJson(response, written.status ?? error.status, written.body, headers);
}

/**
 * Starts inference for a route: admission happens here (and may throw), and the provider call is
 * aborted when the response closes. The response's close, not the request's, says the client
 * left, also mid-stream.
 */
export function startInference(
  parts: GatewayParts,
  context: RouteContext,
  key: KeyRow,
  request: CanonicalRequest,
  form: 'chat_completions' | 'messages' | 'gemini',
): InferenceRun {
  const abort = new AbortController();
  context.response.on('close', () => abort.abort());
  return parts.pipeline.start({
    key,
    request,
    form,
    traceId: context.traceId,
    signal: abort.signal,
    startedAt: context.startedAt,
  });
}
