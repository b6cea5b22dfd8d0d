/** `GET /api/profiles`: the key profiles the BFF holds, masked. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { profilesSchema } from '../../contract/workbench-api';
import { apiGet } from '../lib/api-client';

export const profilesQueryOptions = queryOptions({
  queryKey: ['profiles'],
  queryFn: ({ signal }) => apiGet('/api/profiles', profilesSchema, { signal }),
  staleTime: 5 * 60_000,
});

export function useProfiles() {
  return useQuery(profilesQueryOptions);
}
