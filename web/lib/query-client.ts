import { QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiRequestError } from './api-client';

/**
 * Retries only what a retry can fix: a 4xx answer (bad profile, unknown key, validation) stays
 * the same however often it is asked, a gateway failure the BFF already diagnosed (down, silent,
 * too slow, too large) is shown at once with Try again, and a paid call must never repeat on its
 * own.
 */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (
    error instanceof ApiRequestError &&
    (error.isClientError || error.isDiagnosedGatewayFailure || error.stage === 'response')
  ) {
    return false;
  }
  return failureCount < 2;
}

/** The query key of `GET /api/health` (see web/api/health.ts). */
const healthQueryKey = ['health'];

export function createQueryClient(): QueryClient {
  const queryClient: QueryClient = new QueryClient({
    // A request that found the gateway unreachable asks the health check again at once, so the
    // banner at the top says so without waiting for its next poll.
    queryCache: new QueryCache({
      onError: (error, query) => {
        if (
          error instanceof ApiRequestError &&
          error.stage === 'connect' &&
          query.queryKey[0] !== healthQueryKey[0]
        ) {
          void queryClient.invalidateQueries({ queryKey: healthQueryKey });
        }
      },
    }),
    defaultOptions: {
      queries: { retry: shouldRetry, staleTime: 30_000, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
  return queryClient;
}
