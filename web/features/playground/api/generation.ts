/**
 * `GET /api/generation?profile=&id=`: what the gateway charged for one request (its generation
 * record), for the figures under a finished reply.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import {
  generationChargeSchema,
  generationPendingSchema,
  type GenerationCharge,
} from '../../../../contract/workbench-api';
import { ApiRequestError, apiGet, withQuery } from '../../../lib/api-client';

/** The record is not written yet: asked again, like a hiccup, a bounded number of times. */
export class RecordPending extends Error {
  constructor(id: string) {
    super(`The gateway has not written the record of ${id} yet.`);
    this.name = 'RecordPending';
  }
}

const lookupSchema = z.union([generationPendingSchema, generationChargeSchema]);

/**
 * Asks with `pending=1`, so a record not written yet is a 200 answer rather than a 404 the
 * browser would log as a failed request after every Stop.
 */
export async function fetchGenerationCharge(
  profile: string,
  id: string,
  signal?: AbortSignal,
): Promise<GenerationCharge> {
  const answer = await apiGet(
    withQuery('/api/generation', { profile, id, pending: '1' }),
    lookupSchema,
    { signal },
  );
  if ('pending' in answer) throw new RecordPending(id);
  return answer;
}

/**
 * The gateway writes the record as the request ends, which can be a moment after the reply's
 * last byte (after Stop, the gateway first has to notice): a missing record is asked for again a
 * few times, about 4.5 s in all, before the figures say the record is unavailable.
 */
export const recordAttempts = 6;

/** 0.3 s, 0.6 s, 0.9 s… between attempts. */
export function recordRetryDelayMs(failureCount: number): number {
  return 300 * (failureCount + 1);
}

/** A record not written yet (404), or a gateway or network hiccup, may answer on a later try. */
export function shouldRetryRecord(failureCount: number, error: unknown): boolean {
  if (failureCount >= recordAttempts - 1) return false;
  if (error instanceof RecordPending) return true;
  if (!(error instanceof ApiRequestError)) return false;
  return error.status === 404 || error.status === 0 || error.status >= 500;
}

export function generationChargeQueryOptions(profile: string, id: string) {
  return queryOptions({
    queryKey: ['generation', profile, id],
    queryFn: ({ signal }) => fetchGenerationCharge(profile, id, signal),
    // What was charged for a finished request does not change.
    staleTime: Number.POSITIVE_INFINITY,
    retry: shouldRetryRecord,
    retryDelay: recordRetryDelayMs,
  });
}

/** The charge of one finished request; `lookup` null means there is nothing to look up. */
export function useGenerationCharge(lookup: { profile: string; id: string } | null) {
  return useQuery({
    ...generationChargeQueryOptions(lookup?.profile ?? '', lookup?.id ?? ''),
    enabled: lookup !== null,
  });
}
