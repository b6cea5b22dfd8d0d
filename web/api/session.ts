/** `GET /api/session`: whether the workbench asks for a sign-in, and whether this browser has one. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { sessionStateSchema, type SessionState } from '../../contract/workbench-api';
import { apiGet } from '../lib/api-client';

export function fetchSession(signal?: AbortSignal): Promise<SessionState> {
  return apiGet('/api/session', sessionStateSchema, { signal });
}

export const sessionQueryOptions = queryOptions({
  queryKey: ['session'],
  queryFn: ({ signal }) => fetchSession(signal),
  staleTime: 0,
});

export function useSession() {
  return useQuery(sessionQueryOptions);
}
