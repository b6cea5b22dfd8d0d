/**
 * A workbench with sign-in (WORKBENCH_ACCESS_TOKEN) answers 401 `sign_in_required` once a
 * session has ended (expired, signed out in another tab, server restarted). Any query or
 * mutation failing that way sends the page back to the sign-in form, which returns here after.
 */
import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { ApiRequestError } from '../../lib/api-client';
import { signOutMutationKey } from './api/sign-out';
import { leavePageTo } from './leave-page';

export function isSessionEnd(error: unknown): boolean {
  return error instanceof ApiRequestError && error.type === 'sign_in_required';
}

function signInAgain(queryClient: QueryClient) {
  // Once Sign out has begun, requests still on their way come back 401 for the session it ends;
  // Sign out goes to the plain form itself, and must not be raced by one that comes back here.
  if (queryClient.getMutationCache().findAll({ mutationKey: signOutMutationKey }).length > 0)
    return;
  const here = `${window.location.pathname}${window.location.search}`;
  leavePageTo(`/sign-in?next=${encodeURIComponent(here)}`);
}

export function useSessionEndRedirect(): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    const stopQueries = queryClient.getQueryCache().subscribe((event) => {
      if (
        event.type === 'updated' &&
        event.action.type === 'error' &&
        isSessionEnd(event.action.error)
      ) {
        signInAgain(queryClient);
      }
    });
    const stopMutations = queryClient.getMutationCache().subscribe((event) => {
      if (event.type === 'updated' && isSessionEnd(event.mutation.state.error))
        signInAgain(queryClient);
    });
    return () => {
      stopQueries();
      stopMutations();
    };
  }, [queryClient]);
}
