/** `PATCH /api/profiles/:profile/child-keys/:id`: name, limit, grace, expiry or disabled. */
import { apiPatch } from '../../../lib/api-client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  updatedChildKeySchema,
  type ChildKey,
  type UpdateChildKeyRequest,
} from '../../../../contract/workbench-api';
import { childKeyPath } from '../../../api/child-key-paths';
import { refreshAfterChildKeyChange } from '../../../api/child-keys';

export async function updateChildKey(
  profile: string,
  id: string,
  changes: UpdateChildKeyRequest,
): Promise<ChildKey> {
  const answer = await apiPatch(childKeyPath(profile, id), changes, updatedChildKeySchema);
  return answer.key;
}

export function useUpdateChildKey(profile: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (variables: { id: string; changes: UpdateChildKeyRequest }) =>
      updateChildKey(profile, variables.id, variables.changes),
    onSuccess: () => refreshAfterChildKeyChange(queryClient, profile),
  });
}
