/**
 * Runs one batch line through the pipeline interactive requests take (admission, routing with its
 * fallbacks, metering), as the form its endpoint names, and says how it ended. The line's trace
 * id, and so its generation record's id, comes from the batch and the line: a line run again after
 * its instance died writes the same record, which the store charges once (docs/batches.md).
 */
import crypto from 'node:crypto';
import { gatherResponse } from '../canonical/model';
import { GatewayError, toGatewayError } from '../errors';
import type { EmbeddingForm } from '../forms/embedding-form';
import type { PublicForm } from '../forms/public-form';
import { RequestHolds } from '../pipeline/request-holds';
import { RequestTiming } from '../shared/request-timing';
import type { LineOutcome } from '../store/batches';
import type { GatewayParts } from '../routes/route-kit';
import { refuseUnusableKey } from '../routes/route-kit';

/** How a batch's lines are run: as a chat form, or as embeddings. */
export type LineForm =
  { kind: 'chat'; form: PublicForm } | { kind: 'embeddings'; form: EmbeddingForm };

/** The location code of a batch line's trace id, where an interactive request has its own. */
const BATCH_LOCATION = 'BAT';

/** The line's trace id, the same wherever and however often the line runs. */
export function lineTraceId(batchId: string, index: number): string {
  const digest = crypto.createHash('sha256').update(`${batchId}:${index}`).digest('hex');
  return `${digest.slice(0, 16)}-${BATCH_LOCATION}`;
}

/**
 * The model a line runs as: the `:batch` variant of the model it names, where the catalog has one
 * (the batch price, as the vendors' batch APIs give it); otherwise the model named, at its price.
 */
export function batchRequest(parts: GatewayParts, request: unknown): unknown {
  if (typeof request !== 'object' || request === null) return request;
  const model = (request as { model?: unknown }).model;
  if (typeof model !== 'string' || model.endsWith(':batch')) return request;
  const variant = parts.catalog.find(`${model}:batch`);
  return variant ? { ...request, model: variant.id } : request;
}

export type LineToRun = {
  batchId: string;
  index: number;
  keyId: string;
  endpoint: string;
  request: unknown;
};

export async function runLine(
  parts: GatewayParts,
  lineForm: LineForm,
  line: LineToRun,
  signal: AbortSignal,
): Promise<LineOutcome> {
  const traceId = lineTraceId(line.batchId, line.index);
  const url = new URL(`http://gateway.invalid${line.endpoint}`);
  const timing = new RequestTiming();
  const holds = new RequestHolds(traceId, parts.logger);
  const body = batchRequest(parts, line.request);
  try {
    const key = parts.registry.get(line.keyId);
    if (!key) {
      holds.end();
      throw new GatewayError({
        status: 401,
        type: 'authentication_error',
        stage: 'authentication',
        message: 'The key that created this batch no longer exists.',
      });
    }
    try {
      refuseUnusableKey(parts, key);
    } catch (error) {
      holds.end();
      throw error;
    }
    let result: unknown;
    if (lineForm.kind === 'embeddings') {
      const target = { url };
      let request;
      try {
        request = lineForm.form.toCanonical(body, target);
      } catch (error) {
        holds.end();
        throw error;
      }
      const run = await parts.pipeline.embed({
        key,
        request,
        form: lineForm.form.name,
        traceId,
        signal,
        timing,
        holds,
        batchId: line.batchId,
      });
      result = lineForm.form.toResponse(
        {
          model: run.model.id,
          vectors: run.vectors,
          promptTokens: run.promptTokens,
          costUsd: run.costUsd,
          request,
        },
        target,
      );
    } else {
      let request;
      try {
        // A line's answer is kept whole: a line asking to stream is answered as one body.
        request = { ...lineForm.form.toCanonical(body, { url }), stream: false };
      } catch (error) {
        holds.end();
        throw error;
      }
      const run = await parts.pipeline.start({
        key,
        request,
        form: lineForm.form.name,
        traceId,
        signal,
        timing,
        holds,
        batchId: line.batchId,
      });
      result = lineForm.form.toResponse(await gatherResponse(run.events), {
        model: run.model.id,
        traceId,
        created: Math.floor(Date.now() / 1000),
        promptTokens: run.promptTokens,
        request,
        url,
        keyId: key.id,
      });
    }
    const record = await parts.store.getGeneration(traceId);
    return {
      state: 'succeeded',
      statusCode: 200,
      result,
      generationId: traceId,
      costNanos: record?.costNanos ?? 0,
    };
  } catch (thrown) {
    const error = toGatewayError(thrown);
    if (error.status >= 500 && error.stage !== 'provider') {
      parts.logger.error({ err: thrown, traceId }, 'a batch line failed');
    }
    // A line that failed mid-answer was charged what it delivered, as an interactive one is.
    const record = await parts.store.getGeneration(traceId);
    return {
      state: 'errored',
      statusCode: error.status,
      result: lineForm.form.errorBody(error, traceId),
      generationId: record ? traceId : null,
      costNanos: record?.costNanos ?? 0,
    };
  }
}
