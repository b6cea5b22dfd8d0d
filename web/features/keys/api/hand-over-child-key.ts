/**
 * `POST /api/profiles/:profile/child-keys/hand-over`: a new child key, handed to the person once
 * and kept by nobody, the workbench included.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  handedOverChildKeySchema,
  type HandOverChildKeyRequest,
  type HandedOverChildKey,
} from '../../../../contract/workbench-api';
import { apiPost } from '../../../lib/api-client';
import { childKeysPath } from '../../../api/child-key-paths';
import { refreshAfterChildKeyChange } from '../../../api/child-keys';

export function handOverChildKey(
  profile: string,
  request: HandOverChildKeyRequest,
): Promise<HandedOverChildKey> {
  return apiPost(`${childKeysPath(profile)}/hand-over`, request, handedOverChildKeySchema);
}

export function useHandOverChildKey(profile: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: HandOverChildKeyRequest) => handOverChildKey(profile, request),
    // The answer holds the full key: dropped from the mutation cache as soon as the dialog that
    // shows it closes, so the page keeps no copy either.
    gcTime: 0,
    onSuccess: () => refreshAfterChildKeyChange(queryClient, profile),
  });
}
