/** `GET /api/people/me`: the signed-in person and their own key. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { mePersonSchema, type Person } from '../../../../contract/workbench-people';
import { apiGet } from '../../../lib/api-client';

export async function fetchMe(signal?: AbortSignal): Promise<Person> {
  return (await apiGet('/api/people/me', mePersonSchema, { signal })).person;
}

export const meQueryOptions = queryOptions({
  queryKey: ['people-me'],
  queryFn: ({ signal }) => fetchMe(signal),
});

export function useMe(enabled: boolean) {
  return useQuery({ ...meQueryOptions, enabled });
}
