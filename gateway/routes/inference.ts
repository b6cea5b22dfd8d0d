/**
 * The one inference route, whatever the public form: authenticate the form's way, refuse a key
 * that cannot spend before reading the body, take the key's (and its account's) concurrency slot
 * and, for a large body, one of its account's large-body slots, read and convert the body, run
 * the pipeline (which checks the key's rate limits once it has counted the prompt, before
 * reserving money), then write the answer whole or as the form's stream. The provider
 * call is aborted as soon as the response closes: the response's close, not the request's, says
 * the client left, also mid-stream.
 */
import { authenticate } from '../auth/authenticate';
import { gatherResponse, type CanonicalRequest } from '../canonical/model';
import type { PathTarget, PublicForm } from '../forms/public-form';
import { readJsonBody } from '../http/read-body';
import { sendJson } from '../http/respond';
import type { RouteContext, RouteHandler } from '../http/router';
import { requestRateLimits } from '../limits/request-rate-limits';
import { LARGE_BODY_BYTES } from '../pipeline/key-slots';
import { RequestHolds } from '../pipeline/request-holds';
import { refuseUnusableKey, withErrors, type GatewayParts } from './route-kit';

export function inferenceRoute(
  parts: GatewayParts,
  form: PublicForm,
  /** What the path says (model, streaming); may throw a 404 in the form's shape. */
  pathTarget: (context: RouteContext) => PathTarget = (context) => ({ url: context.url }),
): RouteHandler {
  return withErrors(form.errorBody, async (context) => {
    await serveInference(parts, form, context, () => pathTarget(context));
  });
}

/** The inference steps; `target` is read after the key is checked (it may name a missing model). */
export async function serveInference(
  parts: GatewayParts,
  form: PublicForm,
  context: RouteContext,
  target: () => PathTarget,
): Promise<void> {
  const { request, response, url, traceId } = context;
  const key = await authenticate(request, url, form.auth, parts.registry);
  refuseUnusableKey(parts, key);
  const resolvedTarget = target();
  // Everything this request takes from here on is given back once, by whoever ends it: this
  // route until the pipeline has it, the pipeline after.
  const holds = new RequestHolds(traceId, parts.logger, parts.slots.acquire(key));
  let canonical: CanonicalRequest;
  const abort = new AbortController();
  try {
    const declared = Number(request.headers['content-length']);
    if (!(declared <= LARGE_BODY_BYTES)) holds.holdLargeBody(parts.slots.acquireLarge(key));
    canonical = form.toCanonical(
      await readJsonBody(request, parts.config.maxBodyBytes),
      resolvedTarget,
    );
    // Only a response that closes before it finished means the client left; aborting after a
    // normal end would build an error and wake every listener for nothing.
    response.on('close', () => {
      if (!response.writableFinished) abort.abort();
    });
    // The rate limits need the prompt count: admission's, so the body is counted once.
    holds.holdRateLimits(requestRateLimits(parts.rateLimits, key, response, parts.logger));
  } catch (error) {
    holds.end();
    throw error;
  }
  const run = await parts.pipeline.start({
    key,
    request: canonical,
    form: form.name,
    traceId,
    signal: abort.signal,
    startedAt: context.startedAt,
    holds,
    answerCheck: form.answerCheck?.(),
  });
  // The heavy part of a large body (parse, convert, count, admit) is over.
  holds.releaseLargeBody();
  response.setHeader('x-gateway-provider', run.route.providerId);
  if (run.attempts.length > 1)
    response.setHeader('x-gateway-attempts', String(run.attempts.length));
  const meta = {
    model: run.model.id,
    traceId,
    created: Math.floor(Date.now() / 1000),
    promptTokens: run.promptTokens,
    request: canonical,
    url,
  };
  if (canonical.stream) {
    await form.writeStream(response, run.events, meta);
    return;
  }
  const answer = await gatherResponse(run.events);
  sendJson(response, 200, form.toResponse(answer, meta));
}
