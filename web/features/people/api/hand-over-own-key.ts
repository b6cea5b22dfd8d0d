/**
 * `POST /api/people/me/key/hand-over {show_once: true}`: a new secret for the person's own key,
 * shown once; the one shown before stops. The answer is kept in the mutation only, never cached.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  handedOverOwnKeySchema,
  type HandedOverOwnKey,
} from '../../../../contract/workbench-people';
import { apiPost } from '../../../lib/api-client';
import { refreshAfterPeopleChange } from './people';

export function handOverOwnKey(): Promise<HandedOverOwnKey> {
  return apiPost('/api/people/me/key/hand-over', { show_once: true }, handedOverOwnKeySchema);
}

export function useHandOverOwnKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: handOverOwnKey,
    onSuccess: () => refreshAfterPeopleChange(queryClient),
  });
}
