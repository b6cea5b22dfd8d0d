/** The key check: first what it would cost, then the one minimal inference call. */
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import {
  validateKeyResultSchema,
  validationEstimateSchema,
  type ValidateKeyResult,
} from '../../../../contract/workbench-api';
import { apiGet, apiPost, withQuery } from '../../../lib/api-client';

export function validationEstimateQueryOptions(profile: string, model: string, maxTokens: number) {
  return queryOptions({
    queryKey: ['validate-key-estimate', profile, model, maxTokens],
    queryFn: ({ signal }) =>
      apiGet(
        withQuery('/api/validate-key/estimate', { profile, model, max_tokens: maxTokens }),
        validationEstimateSchema,
        { signal },
      ),
    staleTime: 60_000,
  });
}

export function useValidateKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (variables: {
      profile: string;
      model: string;
      maxTokens: number;
    }): Promise<ValidateKeyResult> =>
      apiPost(
        '/api/validate-key',
        { profile: variables.profile, model: variables.model, max_tokens: variables.maxTokens },
        validateKeyResultSchema,
      ),
    // A real call was made: the balance may have moved (once settlement catches up).
    onSettled: (_result, _error, variables) =>
      queryClient.invalidateQueries({ queryKey: ['balance', variables.profile] }),
  });
}
