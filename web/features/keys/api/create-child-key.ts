/** `POST /api/profiles/:profile/child-keys`: a new child key, its secret kept by the server. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  createdChildKeySchema,
  type CreateChildKeyRequest,
  type CreatedChildKey,
} from '../../../../contract/workbench-api';
import { apiPost } from '../../../lib/api-client';
import { childKeysPath } from '../../../api/child-key-paths';
import { refreshAfterChildKeyChange } from '../../../api/child-keys';

export function createChildKey(
  profile: string,
  request: CreateChildKeyRequest,
): Promise<CreatedChildKey> {
  return apiPost(childKeysPath(profile), request, createdChildKeySchema);
}

export function useCreateChildKey(profile: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: CreateChildKeyRequest) => createChildKey(profile, request),
    onSuccess: () => refreshAfterChildKeyChange(queryClient, profile),
  });
}
