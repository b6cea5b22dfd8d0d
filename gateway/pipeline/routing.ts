/**
 * Routing: which provider answers. The plan's (model, provider) pairs (route-plan.ts: the model's
 * providers, then each fallback model's, as the preferences order them) are tried in order until
 * one's call begins its answer. A provider is retried on connection errors, timeouts, 408, 429 and 5xx,
 * with backoff (or its Retry-After); the caller's own mistakes (400, 413, 422) end the request at
 * once; anything else falls back to the next provider. Cooling-down providers (their breaker open)
 * are skipped. Deadlines are the providers' own (providers/upstream/call-deadlines.ts).
 */
import type { Logger } from 'pino';
import type { CatalogModel } from '../catalog/catalog';
import { clientLeft, GatewayError } from '../errors';
import type { ModelRoute, Provider } from '../providers/provider';
import type { RetryPolicy } from '../providers/upstream/provider-config';
import { UpstreamError } from '../providers/upstream-error';
import { abortableSleep } from '../shared/abortable-sleep';
import type { RequestTiming } from '../shared/request-timing';
import type { Tracer } from '@opentelemetry/api';
import { inSpan, tracingOff } from '../operability/tracing';
import type { GenerationAttempt } from '../store/store';
import type { CircuitBreaker } from './circuit-breaker';
import type { Operation } from './operation';
import type { RoutePlan } from './route-plan';
import {
  allowsFallback,
  backoffMs,
  countsAgainstProvider,
  isRetryable,
  toClientError,
} from './upstream-failure';

/** A provider as the pipeline runs it: with its retry policy and its breaker. */
export type ProviderEntry = { provider: Provider; retry: RetryPolicy; breaker: CircuitBreaker };

export type RoutingDeps = {
  providers: Map<string, ProviderEntry>;
  logger: Logger;
  /** Test hook: how routing waits between attempts. */
  sleep?: (milliseconds: number, signal: AbortSignal) => Promise<void>;
  /** Sees every provider attempt as it is recorded, with the model asked for (metrics, availability). */
  onAttempt?: (attempt: GenerationAttempt, model: string) => void;
  /** A span per attempt (operability/tracing.ts); absent: none. */
  tracer?: Tracer;
};

export type RoutingInput = {
  plan: RoutePlan;
  traceId: string;
  /** Aborts the provider call: the client left or stopped. */
  signal: AbortSignal;
  /** Aborted once the request's lease is lost: the provider call stops too. */
  leaseLost: AbortSignal;
  /** The request's clock: the provider calls and retry waits count as time on the upstream. */
  timing: RequestTiming;
  /** Whether this instance still vouches for the request's lease (metering's fence). */
  leaseHeld: () => boolean;
};

/** The provider whose call began its answer, that answer, and every attempt made for it. */
export type Routed<Answer> = {
  /** The model that answers: the request's, or a fallback. */
  model: CatalogModel;
  route: ModelRoute;
  entry: ProviderEntry;
  answer: Answer;
  /** Every attempt made before this answer started, the answering one last. */
  attempts: GenerationAttempt[];
  /** `performance.now()` when the answer began (its provider's time is measured from there). */
  answeredAt: number;
};

const NO_RETRY: RetryPolicy = { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 };

export async function routeRequest<Request, Answer>(
  deps: RoutingDeps,
  input: RoutingInput,
  operation: Operation<Request, Answer>,
  request: Request,
): Promise<Routed<Answer>> {
  const { plan } = input;
  // Each attempt names its model only when several may answer, so a plain request's are as ever.
  const modelOf = (model: CatalogModel) => (plan.severalModels ? { model: model.id } : {});
  // Routes the preferences left out come first: the record says why each was not tried.
  const attempts: GenerationAttempt[] = plan.skipped.map((skip) => ({
    provider: skip.provider,
    status: skip.reason,
    latencyMs: 0,
    ...(plan.severalModels && { model: skip.model }),
  }));
  let model = plan.candidates[0]!.model;
  const attempted = (attempt: GenerationAttempt) => {
    attempts.push({ ...attempt, ...modelOf(model) });
    deps.onAttempt?.(attempt, model.id);
  };
  let lastError: UpstreamError | null = null;
  let everyFailureRateLimited = true;
  const sleep = deps.sleep ?? abortableSleep;
  // The provider stops when the client leaves, or when the request's lease is lost.
  const signal = AbortSignal.any([input.signal, input.leaseLost]);

  for (const candidate of plan.candidates) {
    const { route } = candidate;
    model = candidate.model;
    const entry = deps.providers.get(route.providerId);
    if (!entry) continue;
    if (!entry.breaker.tryAcquire()) {
      attempted({ provider: route.providerId, status: 'cooling_down', latencyMs: 0 });
      everyFailureRateLimited = false;
      continue;
    }
    const policy = entry.provider.kind === 'simulated' ? NO_RETRY : entry.retry;
    for (let attempt = 1; attempt <= policy.maxAttempts; attempt += 1) {
      if (!input.leaseHeld()) {
        entry.breaker.abandoned();
        throw leaseLostError();
      }
      const began = performance.now();
      try {
        // The provider call runs in the attempt's span: its traceparent goes upstream.
        const answer = await inSpan(
          deps.tracer ?? tracingOff.tracer,
          'gateway.upstream_attempt',
          {
            'gen_ai.provider.name': route.providerId,
            'gen_ai.request.model': route.upstreamModel,
            'gateway.attempt': attempt,
            'gateway.fallback': attempts.some((tried) => tried.status !== 200),
          },
          async (span) => {
            const began = performance.now();
            try {
              const answered = await operation.call(entry.provider, request, route, signal);
              span.setAttribute('http.response.status_code', 200);
              return answered;
            } catch (error) {
              if (error instanceof UpstreamError)
                span.setAttribute(
                  'gateway.attempt_status',
                  String(error.details.status ?? error.failure),
                );
              throw error;
            } finally {
              input.timing.waitedOnUpstream(began);
            }
          },
        );
        const answeredAt = performance.now();
        const latencyMs = round(answeredAt - began);
        if (input.signal.aborted) {
          entry.breaker.abandoned();
          await operation.discard(answer);
          throw clientLeft();
        }
        if (!input.leaseHeld()) {
          await operation.discard(answer);
          throw leaseLostError();
        }
        entry.breaker.succeeded();
        attempted({ provider: route.providerId, status: 200, latencyMs });
        return { model, route, entry, answer, attempts, answeredAt };
      } catch (error) {
        const latencyMs = round(performance.now() - began);
        // Stopped by the fence, not failed: not the provider's fault.
        if (input.leaseLost.aborted) {
          entry.breaker.abandoned();
          throw leaseLostError();
        }
        if (!(error instanceof UpstreamError)) {
          // The request cannot be sent to this provider as it is (a 400 naming the field), or
          // the client left: neither is the provider's fault.
          entry.breaker.abandoned();
          if (error instanceof GatewayError) throw error;
          deps.logger.error(
            { err: error, cfRay: input.traceId, provider: route.providerId },
            'provider failed unexpectedly',
          );
          throw new GatewayError({
            status: 502,
            type: 'provider_error',
            stage: 'provider',
            message: `Provider '${route.providerId}' failed unexpectedly. Retry later.`,
            retryAfterSeconds: 5,
          });
        }
        attempted({
          provider: route.providerId,
          status: error.details.status ?? error.failure,
          latencyMs,
        });
        deps.logger.warn(
          {
            cfRay: input.traceId,
            provider: route.providerId,
            failure: error.failure,
            status: error.details.status,
            attempt,
          },
          'provider attempt failed',
        );
        if (countsAgainstProvider(error)) entry.breaker.failed();
        else entry.breaker.abandoned();
        lastError = error;
        if (error.details.status !== 429) everyFailureRateLimited = false;
        if (!allowsFallback(error)) throw toClientError(error, false);
        const retryAfter = error.details.retryAfterSeconds;
        const wait = backoffMs(attempt, policy, retryAfter);
        // A Retry-After longer than the policy allows is better spent on the next provider.
        if (!isRetryable(error) || attempt === policy.maxAttempts || wait > policy.maxDelayMs)
          break;
        if (!entry.breaker.tryAcquire()) break;
        // Waiting to retry a provider is waiting on it, not the gateway's own time.
        const waitBegan = performance.now();
        await sleep(wait, signal);
        input.timing.waitedOnUpstream(waitBegan);
        if (input.signal.aborted) throw clientLeft();
        if (!input.leaseHeld()) throw leaseLostError();
      }
    }
  }
  if (lastError)
    throw toClientError(lastError, everyFailureRateLimited && plan.candidates.length > 1);
  const cooling = plan.candidates
    .map(
      ({ route }) =>
        deps.providers.get(route.providerId)?.breaker.status().retryAfterSeconds ?? null,
    )
    .filter((seconds): seconds is number => seconds !== null);
  throw new GatewayError({
    status: 503,
    type: 'provider_error',
    stage: 'provider',
    message: `No provider of ${plan.requested} is available right now: ${cooling.length > 0 ? 'each failed repeatedly and is cooling down' : 'none is configured'}. Retry later.`,
    retryAfterSeconds: cooling.length > 0 ? Math.min(...cooling) : 30,
  });
}

export const round = (milliseconds: number) => Math.round(milliseconds * 100) / 100;

/**
 * The request's lease could not be renewed in time (this instance lost its database or Redis for
 * a while, or was paused): it was stopped before another instance could give its reservation
 * away. Another instance can serve a retry.
 */
export const leaseLostError = () =>
  new GatewayError({
    status: 503,
    type: 'provider_error',
    stage: 'provider',
    message:
      "This gateway instance could not renew the hold on this request's budget in time, so it stopped the answer. Retry: another instance can serve it.",
    retryAfterSeconds: 1,
  });
