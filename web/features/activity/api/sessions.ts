/**
 * `GET /api/activity/sessions?profile=&days=&key_id=`: the agent sessions of the range, the latest
 * active first, each with its requests, time, tokens, cache hits and cost.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { agentSessionsViewSchema } from '../../../../contract/workbench-api';
import { apiGet, withQuery } from '../../../lib/api-client';

export function sessionsQueryOptions(profile: string, days: number, keyId: string | null) {
  return queryOptions({
    queryKey: ['activity', 'sessions', profile, days, keyId],
    queryFn: ({ signal }) =>
      apiGet(
        withQuery('/api/activity/sessions', { profile, days, key_id: keyId }),
        agentSessionsViewSchema,
        { signal },
      ),
    staleTime: 5_000,
  });
}

/** The profile's agent sessions over the last `days` days; idle while no profile is chosen. */
export function useAgentSessions(profile: string | null, days: number, keyId: string | null) {
  return useQuery({
    ...sessionsQueryOptions(profile ?? '', days, keyId),
    enabled: profile !== null && profile !== '',
  });
}
