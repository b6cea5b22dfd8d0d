/** `GET /api/activity?profile=&days=`: requests, tokens and cost per UTC day and model. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { activityViewSchema, type ActivityView } from '../../../../contract/workbench-api';
import { apiGet, withQuery } from '../../../lib/api-client';

export function fetchActivity(
  profile: string,
  days: number,
  signal?: AbortSignal,
): Promise<ActivityView> {
  return apiGet(withQuery('/api/activity', { profile, days }), activityViewSchema, { signal });
}

export function activityQueryOptions(profile: string, days: number) {
  return queryOptions({
    queryKey: ['activity', profile, days],
    queryFn: ({ signal }) => fetchActivity(profile, days, signal),
    // Requests made a moment ago (in the playground) should show when the page opens.
    staleTime: 5_000,
  });
}

/** The profile's activity over the last `days` days; idle while no profile is chosen. */
export function useActivity(profile: string | null, days: number) {
  return useQuery({
    ...activityQueryOptions(profile ?? '', days),
    enabled: profile !== null && profile !== '',
  });
}
