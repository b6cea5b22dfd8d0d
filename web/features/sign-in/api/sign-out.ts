/** `POST /api/sign-out`: ends the session on the server and clears its cookie. */
import { useMutation } from '@tanstack/react-query';
import { sessionStateSchema, type SessionState } from '../../../../contract/workbench-api';
import { apiPost } from '../../../lib/api-client';

export function signOut(): Promise<SessionState> {
  return apiPost('/api/sign-out', {}, sessionStateSchema);
}

/** Names the sign-out, so that requests refused for the session it is ending can tell. */
export const signOutMutationKey = ['sign-out'] as const;

export function useSignOut() {
  return useMutation({ mutationKey: signOutMutationKey, mutationFn: signOut });
}
