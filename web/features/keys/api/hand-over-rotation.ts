/**
 * `POST /api/profiles/:profile/child-keys/:id/rotation/hand-over`: a key no profile holds gets a
 * new secret, handed to the person once and kept by nobody, the workbench included.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  handedOverChildKeySchema,
  type HandedOverChildKey,
} from '../../../../contract/workbench-api';
import { apiPost } from '../../../lib/api-client';
import { childKeyPath } from '../../../api/child-key-paths';
import { refreshAfterChildKeyChange } from '../../../api/child-keys';

export function handOverRotation(profile: string, id: string): Promise<HandedOverChildKey> {
  return apiPost(
    childKeyPath(profile, id, 'rotation', 'hand-over'),
    { show_once: true },
    handedOverChildKeySchema,
  );
}

export function useHandOverRotation(profile: string, id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => handOverRotation(profile, id),
    // As with a new key handed over: the answer holds the full key, so it leaves the mutation
    // cache as soon as the dialog showing it closes.
    gcTime: 0,
    onSuccess: () => refreshAfterChildKeyChange(queryClient, profile),
  });
}
