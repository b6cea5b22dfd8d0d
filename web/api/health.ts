/** `GET /api/health`: which gateway the BFF talks to, and whether it answers. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { healthSchema } from '../../contract/workbench-api';
import { apiGet } from '../lib/api-client';

export const healthQueryOptions = queryOptions({
  queryKey: ['health'],
  queryFn: ({ signal }) => apiGet('/api/health', healthSchema, { signal }),
  staleTime: 60_000,
});

export function useHealth() {
  return useQuery(healthQueryOptions);
}
