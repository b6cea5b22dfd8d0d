/**
 * A workbench with sign-in (WORKBENCH_ACCESS_TOKEN) answers 401 `sign_in_required` once a
 * session has ended (expired, signed out in another tab, server restarted). Any query or
 * mutation failing that way sends the page back to the sign-in form, which returns here after.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { ApiRequestError } from '../../lib/api-client';
import { leavePageTo } from './leave-page';

export function isSessionEnd(error: unknown): boolean {
  return error instanceof ApiRequestError && error.type === 'sign_in_required';
}

function signInAgain() {
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
        signInAgain();
      }
    });
    const stopMutations = queryClient.getMutationCache().subscribe((event) => {
      if (event.type === 'updated' && isSessionEnd(event.mutation.state.error)) signInAgain();
    });
    return () => {
      stopQueries();
      stopMutations();
    };
  }, [queryClient]);
}
