/** `GET /api/people` (admins): everyone who signed in, their key and this period's spend. */
import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query';
import { peopleSchema, type People } from '../../../../contract/workbench-people';
import { apiGet } from '../../../lib/api-client';

export function fetchPeople(signal?: AbortSignal): Promise<People> {
  return apiGet('/api/people', peopleSchema, { signal });
}

export const peopleQueryOptions = queryOptions({
  queryKey: ['people'],
  queryFn: ({ signal }) => fetchPeople(signal),
  // Spend moves while the page is open; each refresh costs the gateway a call per person.
  refetchInterval: 10_000,
});

export function usePeople(enabled: boolean) {
  return useQuery({ ...peopleQueryOptions, enabled });
}

/** After any change: the people, the signed-in person and the audit log are read again. */
export function refreshAfterPeopleChange(queryClient: QueryClient): Promise<unknown> {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: ['people'] }),
    queryClient.invalidateQueries({ queryKey: ['people-me'] }),
    queryClient.invalidateQueries({ queryKey: ['audit'] }),
  ]);
}
