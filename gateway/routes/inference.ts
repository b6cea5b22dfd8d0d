/**
 * The one inference route, whatever the public form: authenticate the form's way, refuse a key
 * that cannot spend before reading the body, take the key's (and its account's) concurrency slot
 * and, for a large body, one of its account's large-body slots, read and convert the body, run
 * the pipeline (which checks the key's rate limits once it has counted the prompt, before
 * reserving money), then write the answer whole or as the form's stream. The provider
 * call is aborted as soon as the response closes: the response's close, not the request's, says
 * the client left, also mid-stream.
 */
import { triedAttempts } from '../../contract/routing';
import { authenticate, type AuthForm } from '../auth/authenticate';
import { gatherResponse, type CanonicalRequest } from '../canonical/model';
import type { PathTarget, PublicForm } from '../forms/public-form';
import { readJsonBody } from '../http/read-body';
import { sessionIdOf } from '../http/session-id';
import { sendJson, timeAnswer } from '../http/respond';
import type { RouteContext, RouteHandler } from '../http/router';
import { requestRateLimits } from '../limits/request-rate-limits';
import { LARGE_BODY_BYTES } from '../pipeline/key-slots';
import { RequestHolds } from '../pipeline/request-holds';
import { describeRequest, inRequestSpan } from '../operability/tracing';
import type { KeyRow } from '../store/store';
import { refuseUnusableKey, withErrors, type GatewayParts } from './route-kit';
import { setTranslationHeaders, withRequestTranslation } from './translation-headers';

/**
 * What the inference steps can refuse with: the body (400, 413, 415), the key (401, 402), the
 * model (404), the limits (429) and the providers (400 and 403 passed on, 502, 503, 504).
 */
export const INFERENCE_ERRORS = [400, 401, 402, 403, 404, 413, 415, 429, 502, 503, 504] as const;

/** What receiving a request reads: the key, the body's bound, the key's slots and rate limits. */
export type ReceiveParts = Pick<
  GatewayParts,
  'clock' | 'config' | 'logger' | 'rateLimits' | 'registry' | 'slots'
>;

/** What serving an inference request reads: receiving it, then the pipeline, in a span. */
export type InferenceParts = Pick<GatewayParts, 'pipeline' | 'tracing' | keyof ReceiveParts>;

export function inferenceRoute(
  parts: InferenceParts,
  form: PublicForm,
  /** What the path says (model, streaming); may throw a 404 in the form's shape. */
  pathTarget: (context: RouteContext) => PathTarget = (context) => ({ url: context.url }),
  hooks: InferenceHooks = {},
): RouteHandler {
  return withErrors(form.errorBody, (context) =>
    inRequestSpan(parts.tracing, context, 'chat', () =>
      serveInference(parts, form, context, () => pathTarget(context), hooks),
    ),
  );
}

/** A request read and held, ready for the pipeline, which ends its holds from then on. */
export type ReceivedRequest<Request, Target> = {
  key: KeyRow;
  request: Request;
  target: Target;
  holds: RequestHolds;
  /** Aborted when the client leaves before its answer has ended. */
  signal: AbortSignal;
  /** The agent session the client named, or null. */
  sessionId: string | null;
};

/**
 * The steps before the pipeline, for every operation: the key, the slots, the body converted,
 * the rate limits. Whatever it takes is given back once, by whoever ends the request: this
 * function when a step fails, the pipeline after it has the holds.
 */
export async function receiveRequest<Request, Target>(
  parts: ReceiveParts,
  auth: AuthForm,
  context: RouteContext,
  target: () => Target,
  convert: (body: unknown, target: Target, key: KeyRow) => Request | Promise<Request>,
): Promise<ReceivedRequest<Request, Target>> {
  const { request, response, url, traceId } = context;
  timeAnswer(response, context.timing);
  const key = await authenticate(request, url, auth, parts.registry);
  refuseUnusableKey(parts, key);
  const sessionId = sessionIdOf(request.headers);
  const resolvedTarget = target();
  const holds = new RequestHolds(traceId, parts.logger, parts.slots.acquire(key));
  try {
    const declared = Number(request.headers['content-length']);
    if (!(declared <= LARGE_BODY_BYTES)) holds.holdLargeBody(parts.slots.acquireLarge(key));
    const converted = await convert(
      await readJsonBody(request, parts.config.maxBodyBytes),
      resolvedTarget,
      key,
    );
    const abort = new AbortController();
    // Only a response that closes before it finished means the client left; aborting after a
    // normal end would build an error and wake every listener for nothing.
    response.on('close', () => {
      if (!response.writableFinished) abort.abort();
    });
    // The rate limits need the prompt count: admission's, so the body is counted once.
    holds.holdRateLimits(requestRateLimits(parts.rateLimits, key, response, parts.logger));
    return {
      key,
      request: converted,
      target: resolvedTarget,
      holds,
      signal: abort.signal,
      sessionId,
    };
  } catch (error) {
    holds.end();
    throw error;
  }
}

/** What a route adds around the inference steps (the Responses form's stored conversations). */
export type InferenceHooks = {
  /** Rewrites the parsed body, the key known, before it is converted (a stored conversation). */
  prepareBody?: (body: unknown, key: KeyRow) => Promise<unknown>;
  /** Keeps the finished answer's body before the client is told it finished. */
  keep?: (answer: unknown, key: KeyRow, request: CanonicalRequest) => Promise<void>;
};

/** The inference steps; `target` is read after the key is checked (it may name a missing model). */
export async function serveInference(
  parts: InferenceParts,
  form: PublicForm,
  context: RouteContext,
  target: () => PathTarget,
  hooks: InferenceHooks = {},
): Promise<void> {
  const { response, url, traceId } = context;
  const received = await receiveRequest(
    parts,
    form.auth,
    context,
    target,
    async (body, resolved, key) =>
      withRequestTranslation(
        form.toCanonical(hooks.prepareBody ? await hooks.prepareBody(body, key) : body, resolved),
        context.request,
        form.passHeaders,
      ),
  );
  const canonical = received.request;
  describeRequest(parts.tracing, {
    model: canonical.model,
    maxTokens: canonical.maxTokens,
    stream: canonical.stream,
    messages: canonical.messages,
    form: form.name,
    keyId: received.key.id,
    sessionId: received.sessionId,
  });
  const run = await parts.pipeline.start({
    key: received.key,
    request: canonical,
    form: form.name,
    traceId,
    signal: received.signal,
    timing: context.timing,
    sessionId: received.sessionId,
    holds: received.holds,
    answerCheck: form.answerCheck?.(),
  });
  // The heavy part of a large body (parse, convert, count, admit) is over.
  received.holds.releaseLargeBody();
  response.setHeader('x-gateway-provider', run.route.providerId);
  // Routes the request's preferences skipped were not attempts.
  const tried = triedAttempts(run.attempts).length;
  if (tried > 1) response.setHeader('x-gateway-attempts', String(tried));
  setTranslationHeaders(response, run.translation);
  const meta = {
    model: run.model.id,
    traceId,
    created: Math.floor(Date.now() / 1000),
    promptTokens: run.promptTokens,
    request: canonical,
    url,
    keyId: received.key.id,
    ...(hooks.keep && {
      keep: (answer: unknown) => hooks.keep!(answer, received.key, canonical),
    }),
  };
  if (canonical.stream) {
    await form.writeStream(response, run.events, meta);
    return;
  }
  const answer = form.toResponse(await gatherResponse(run.events), meta);
  await meta.keep?.(answer);
  sendJson(response, 200, answer);
}
