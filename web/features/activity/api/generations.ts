/**
 * `GET /api/generations?profile=&…`: the profile's requests, newest first, page by page (the
 * gateway's cursor), for the Activity page's infinite table.
 */
import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import {
  generationsPageSchema,
  type GenerationOutcome,
  type GenerationsPage,
} from '../../../../contract/workbench-api';
import { apiGet, withQuery } from '../../../lib/api-client';

/**
 * The listing's filters: a time window (Unix seconds, `to` excluded), a model, an outcome, and
 * (an account profile) one of its keys.
 */
export interface GenerationsFilters {
  from: number;
  to: number;
  model: string | null;
  outcome: GenerationOutcome | null;
  keyId: string | null;
  /** One agent session's requests only. */
  sessionId?: string | null;
  /** The one request of this trace id (cf-ray); the other filters then do not apply. */
  traceId?: string | null;
}

/** Rows per page: a screenful or two; more come as the table scrolls. */
export const generationsPageSize = 100;

export function fetchGenerationsPage(
  profile: string,
  filters: GenerationsFilters,
  cursor: string | null,
  signal?: AbortSignal,
): Promise<GenerationsPage> {
  return apiGet(
    withQuery('/api/generations', {
      profile,
      from: filters.from,
      to: filters.to,
      model: filters.model,
      outcome: filters.outcome,
      key_id: filters.keyId,
      session_id: filters.sessionId,
      id: filters.traceId,
      limit: generationsPageSize,
      cursor,
    }),
    generationsPageSchema,
    { signal },
  );
}

export function generationsQueryOptions(profile: string, filters: GenerationsFilters) {
  return infiniteQueryOptions({
    queryKey: ['generations', profile, filters],
    queryFn: ({ pageParam, signal }) => fetchGenerationsPage(profile, filters, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    staleTime: 5_000,
  });
}

/** The profile's requests matching `filters`; idle while no profile is chosen. */
export function useGenerations(profile: string | null, filters: GenerationsFilters) {
  return useInfiniteQuery({
    ...generationsQueryOptions(profile ?? '', filters),
    enabled: profile !== null && profile !== '',
  });
}
