/**
 * `GET /api/activity?profile=&days=&key_id=`: requests, tokens and cost per UTC day and model, of
 * all the profile's keys or (an account profile) of one of them.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { activityViewSchema, type ActivityView } from '../../contract/workbench-api';
import { apiGet, withQuery } from '../lib/api-client';

export function fetchActivity(
  profile: string,
  days: number,
  keyId: string | null,
  signal?: AbortSignal,
): Promise<ActivityView> {
  return apiGet(withQuery('/api/activity', { profile, days, key_id: keyId }), activityViewSchema, {
    signal,
  });
}

export function activityQueryOptions(profile: string, days: number, keyId: string | null) {
  return queryOptions({
    queryKey: ['activity', profile, days, keyId],
    queryFn: ({ signal }) => fetchActivity(profile, days, keyId, signal),
    // Requests made a moment ago (in the playground) should show when the page opens.
    staleTime: 5_000,
  });
}

/** The profile's activity over the last `days` days; idle while no profile is chosen. */
export function useActivity(profile: string | null, days: number, keyId: string | null) {
  return useQuery({
    ...activityQueryOptions(profile ?? '', days, keyId),
    enabled: profile !== null && profile !== '',
  });
}
