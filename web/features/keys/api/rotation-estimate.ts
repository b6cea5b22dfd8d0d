/** `GET /api/profiles/:profile/child-keys/:id/rotation/estimate`: step 3's cost, before it runs. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { rotationEstimateSchema } from '../../../../contract/workbench-api';
import { apiGet } from '../../../lib/api-client';
import { childKeyPath } from '../../../api/child-key-paths';

export function rotationEstimateQueryOptions(profile: string, id: string) {
  return queryOptions({
    queryKey: ['rotation-estimate', profile, id],
    queryFn: ({ signal }) =>
      apiGet(childKeyPath(profile, id, 'rotation', 'estimate'), rotationEstimateSchema, {
        signal,
      }),
    staleTime: 60_000,
  });
}

/** The verify request's estimated cost; idle until `enabled` (the rotation dialog opens). */
export function useRotationEstimate(profile: string, id: string, enabled: boolean) {
  return useQuery({ ...rotationEstimateQueryOptions(profile, id), enabled });
}
