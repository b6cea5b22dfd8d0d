/**
 * `POST /api/sign-in {token}`: starts a session (an httpOnly cookie the page never sees). The
 * token goes in the JSON body only, never in the address.
 */
import { useMutation } from '@tanstack/react-query';
import { sessionStateSchema, type SessionState } from '../../../../contract/workbench-api';
import { apiPost } from '../../../lib/api-client';

export function signIn(token: string): Promise<SessionState> {
  return apiPost('/api/sign-in', { token }, sessionStateSchema);
}

export function useSignIn() {
  return useMutation({ mutationFn: signIn });
}
