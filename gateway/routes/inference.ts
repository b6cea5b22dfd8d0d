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
import { gatherResponse } from '../canonical/model';
import type { PathTarget, PublicForm } from '../forms/public-form';
import { readJsonBody } from '../http/read-body';
import { sendJson } from '../http/respond';
import type { RouteContext, RouteHandler } from '../http/router';
import { requestRateLimits } from '../limits/request-rate-limits';
import type { InferenceRun } from '../pipeline/inference-pipeline';
import { LARGE_BODY_BYTES, type SlotRelease } from '../pipeline/key-slots';
import { refuseUnusableKey, withErrors, type GatewayParts } from './route-kit';
import { setTranslationHeaders, withRequestTranslation } from './translation-headers';

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
  const releaseSlot = parts.slots.acquire(key);
  let slotHandedOver = false;
  let releaseLarge: SlotRelease = () => undefined;
  try {
    const declared = Number(request.headers['content-length']);
    if (!(declared <= LARGE_BODY_BYTES)) releaseLarge = parts.slots.acquireLarge(key);
    const canonical = withRequestTranslation(
      form.toCanonical(await readJsonBody(request, parts.config.maxBodyBytes), resolvedTarget),
      request,
      form.passHeaders,
    );
    const abort = new AbortController();
    // Only a response that closes before it finished means the client left; aborting after a
    // normal end would build an error and wake every listener for nothing.
    response.on('close', () => {
      if (!response.writableFinished) abort.abort();
    });
    slotHandedOver = true;
    const limits = requestRateLimits(parts.rateLimits, key, response, parts.logger);
    let run: InferenceRun;
    try {
      run = await parts.pipeline.start({
        key,
        request: canonical,
        form: form.name,
        traceId,
        signal: abort.signal,
        startedAt: context.startedAt,
        releaseSlot,
        // The rate limits need the prompt count: the pipeline's, so the body is counted once.
        beforeReserve: limits.admit,
        onEnd: limits.settle,
        answerCheck: form.answerCheck?.(),
      });
    } catch (error) {
      // Refused or failed before the answer began: the tokens taken are given back.
      limits.settle(0);
      throw error;
    }
    // The heavy part of a large body (parse, convert, count, admit) is over.
    releaseLarge();
    response.setHeader('x-gateway-provider', run.route.providerId);
    if (run.attempts.length > 1)
      response.setHeader('x-gateway-attempts', String(run.attempts.length));
    setTranslationHeaders(response, run.translation);
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
  } finally {
    releaseLarge();
    if (!slotHandedOver) releaseSlot();
  }
}
