/** `GET /api/activity/batches?profile=`: the profile key's latest batches, their progress and cost. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { batchesViewSchema } from '../../../../contract/workbench-api';
import { apiGet, withQuery } from '../../../lib/api-client';
import { runningBatchStates } from './batch-runs';

export function batchesQueryOptions(profile: string) {
  return queryOptions({
    queryKey: ['activity', 'batches', profile],
    queryFn: ({ signal }) =>
      apiGet(withQuery('/api/activity/batches', { profile }), batchesViewSchema, { signal }),
    staleTime: 5_000,
    // A running batch moves: its progress is read again every few seconds while the page is open.
    refetchInterval: (query) =>
      query.state.data?.data.some((batch) => runningBatchStates.includes(batch.status))
        ? 3_000
        : false,
  });
}

/** The profile's batches; idle while no profile is chosen. */
export function useBatches(profile: string | null) {
  return useQuery({
    ...batchesQueryOptions(profile ?? ''),
    enabled: profile !== null && profile !== '',
  });
}
