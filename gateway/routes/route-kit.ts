/**
 * What every route family needs: the gateway's parts (each family picks those it uses), a wrapper that writes any thrown error in
 * the family's own public shape (with `Retry-After` where a retry helps), and the key checks every
 * route that spends makes before it reads a body.
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Catalog } from '../catalog/catalog';
import type { Budget } from '../billing/budget';
import type { RateLimits } from '../limits/rate-limits';
import type { GatewayConfig } from '../config';
import { invalidRequest, toGatewayError, type GatewayError } from '../errors';
import type { RouteHandler } from '../http/router';
import { sendJson } from '../http/respond';
import type { WebhookAdmin } from '../events/webhook-admin';
import type { KeyAdmin } from '../keys/key-admin';
import type { KeyRegistry } from '../keys/key-registry';
import type { CalendarClock } from '../keys/calendar-clock';
import { inferenceRefusal } from '../keys/key-state';
import type { InferencePipeline } from '../pipeline/inference-pipeline';
import type { KeySlots } from '../pipeline/key-slots';
import type { GatewayMetrics } from '../operability/gateway-metrics';
import type { ProviderAvailability } from '../operability/provider-availability';
import type { ReadinessCheck } from '../operability/readiness';
import type { RoutingNames } from '../catalog/routing-names';
import type { StoredPresets } from '../catalog/stored-presets';
import type { GatewayStore, KeyRow } from '../store/store';
import type { Tracing } from '../operability/tracing';

export type GatewayParts = {
  config: GatewayConfig;
  store: GatewayStore;
  catalog: Catalog;
  /** Aliases and presets beside the catalog (docs/routing.md). */
  names: RoutingNames;
  /** The admin API's presets, kept in the store and served by every instance. */
  presets: StoredPresets;
  registry: KeyRegistry;
  /** Every change to a key goes through here (rules, audit, ledger). */
  admin: KeyAdmin;
  budget: Budget;
  /** Requests and tokens per minute per key (memory, or Redis across instances). */
  rateLimits: RateLimits;
  /** Identifies this process among instances sharing a store. */
  instanceId: string;
  pipeline: InferencePipeline;
  slots: KeySlots;
  logger: Logger;
  /** This instance's Prometheus registry and counters (`GET /metrics`). */
  metrics: GatewayMetrics;
  /** Provider stats collected from this instance's traffic, added into the store in batches. */
  availability: ProviderAvailability;
  /** Webhook endpoints and their deliveries (events/webhook-admin.ts). */
  webhooks: WebhookAdmin;
  /** The calendar: budget periods and expiry (GATEWAY_CLOCK_OFFSET_MS moves it in drills). */
  clock: CalendarClock;
  /** Traces over OTLP (operability/tracing.ts); `tracingOff` when not configured. */
  tracing: Tracing;
  /** Dependencies `GET /readyz` asks besides the store (which it always asks), e.g. Redis. */
  readiness?: ReadinessCheck[];
  /** This instance's batch runner (batches/batch-runner.ts), woken when a batch is made or cancelled. */
  batchRunner?: { wake(): void };
};

/** A public form's error body for a GatewayError. */
export type ErrorBody = (error: GatewayError, traceId: string) => unknown;

export function withErrors(errorBody: ErrorBody, handler: RouteHandler): RouteHandler {
  return async (context) => {
    try {
      await handler(context);
    } catch (thrown) {
      // The client left: there is nobody to answer, and nothing failed on our side (the
      // pipeline has already recorded what was delivered).
      if (context.response.destroyed) return;
      const error = toGatewayError(thrown);
      // Kept for the request's log line; the client sees only the public message.
      if (error.status >= 500 && error.stage !== 'provider') context.failure = thrown;
      sendError(context.response, error, errorBody(error, context.traceId));
    }
  };
}

export function sendError(response: ServerResponse, error: GatewayError, body: unknown): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined)
    headers['retry-after'] = String(error.retryAfterSeconds);
  sendJson(response, error.status, body, headers);
}

/**
 * Refuses a key that cannot spend (expired, disabled, parent unusable, depleted) with its 402,
 * from the registry's fresh row, before anything of the request's body is read or counted.
 */
export function refuseUnusableKey(
  parts: Pick<GatewayParts, 'registry' | 'clock'>,
  presented: KeyRow,
): void {
  const key = parts.registry.get(presented.id) ?? presented;
  const refusal = inferenceRefusal(key, parts.registry.get(key.parentId), parts.clock.nowSeconds());
  if (refusal) throw refusal;
}

/**
 * `value` parsed by `schema`, or a 400 naming the first field (or query parameter) that failed,
 * as the other routes do: "Invalid field 'limit_usd': …".
 */
export function parseOrRefuse<T>(
  schema: z.ZodType<T>,
  value: unknown,
  what: 'field' | 'query parameter' = 'field',
): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const name =
    issue.code === 'unrecognized_keys' ? issue.keys[0] : issue.path.map(String).join('.');
  const message =
    issue.code === 'unrecognized_keys'
      ? 'not a known field here'
      : issue.message.replace(/\.$/, '');
  throw invalidRequest(`Invalid ${what} '${name || 'body'}': ${message}.`);
}

/** The query string as an object of its first values (a repeated parameter counts once). */
export function queryOf(url: URL): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) if (!(name in query)) query[name] = value;
  return query;
}

/** An opaque page cursor over a few integers (a position in a listing). */
export function encodeCursor(values: number[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

export function decodeCursor(cursor: string, length: number): number[] {
  try {
    const values: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(values) &&
      values.length === length &&
      values.every((value) => Number.isSafeInteger(value))
    ) {
      return values as number[];
    }
  } catch {
    // Refused below, as any other malformed cursor.
  }
  throw invalidRequest(
    "Invalid query parameter 'cursor': not a cursor this gateway gave; pass next_cursor as it came.",
  );
}
