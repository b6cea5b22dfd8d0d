/**
 * `GET /api/generation?profile=&id=<cf-ray>`: what the gateway charged for one request, read from
 * its generation record (`GET /v1/generation?id=`) with the profile's key, so the playground can
 * show the charge rather than its own estimate. The id is checked against the trace id format
 * before it goes anywhere; only the fields the UI shows are passed on.
 */
import { triedAttempts } from '../../contract/routing';
import { Router } from 'express';
import { generationRecordSchema, type GenerationRecord } from '../../contract/gateway';
import { generationQuerySchema, type GenerationCharge } from '../../contract/workbench-api';
import { abortOnClientClose } from '../core/client-close';
import type { WorkbenchContext } from '../core/context';
import { ApiFailure, parseInput, readGatewayAnswer } from '../core/errors';

/** The record's charged figures, as the browser sees them. */
export function chargeOf(record: GenerationRecord, fetchedAt: number): GenerationCharge {
  return {
    id: record.id,
    model: record.model,
    provider: record.provider,
    prompt_tokens: record.prompt_tokens,
    completion_tokens: record.completion_tokens,
    cost_usd: record.cost_usd,
    outcome: record.outcome,
    finish_reason: record.finish_reason,
    usage_estimated: record.usage_estimated ?? false,
    charge_capped: record.charge_capped ?? false,
    settlement: record.settlement,
    // Routes the request's preferences skipped were not attempts.
    attempts: Math.max(1, triedAttempts(record.attempts ?? []).length),
    overhead_ms: record.overhead_ms ?? null,
    fetched_at: fetchedAt,
  };
}

/**
 * Reads one generation record with a profile's key. A 404 stays a 404 (the record may not be
 * written yet, or belongs to another key); a gateway that fails answers with its staged error.
 */
export async function fetchGenerationCharge(
  context: WorkbenchContext,
  profile: string,
  id: string,
  signal?: AbortSignal,
): Promise<GenerationCharge> {
  const key = context.profiles.keyOf(profile);
  const answer = await context.gateway.collect({
    method: 'GET',
    path: `/v1/generation?id=${encodeURIComponent(id)}`,
    key,
    signal,
  });
  const record = readGatewayAnswer(
    answer,
    generationRecordSchema,
    'The gateway’s generation record does not have the expected shape (object "generation").',
    context.profiles.allKeys(),
  );
  return chargeOf(record, Date.now());
}

export function createGenerationRouter(context: WorkbenchContext): Router {
  const router = Router();
  router.get('/generation', async (request, response) => {
    const query = parseInput(generationQuerySchema, request.query, 'query');
    const signal = abortOnClientClose(response);
    try {
      response.json(await fetchGenerationCharge(context, query.profile, query.id, signal));
    } catch (error) {
      // Asked to: "not written yet" is an answer, not a failure (no red line in the console).
      const notYet =
        error instanceof ApiFailure && error.status === 404 && error.detail.upstream_status === 404;
      if (query.pending !== '1' || !notYet) throw error;
      response.json({ id: query.id, pending: true });
    }
  });
  return router;
}
