import { QueryClient } from '@tanstack/react-query';
import { ApiRequestError } from './api-client';

/**
 * Retries only what a retry can fix: a 4xx answer (bad profile, unknown key, validation) stays
 * the same however often it is asked, and a paid call must never repeat on its own.
 */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiRequestError && (error.isClientError || error.stage === 'response')) {
    return false;
  }
  return failureCount < 2;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: shouldRetry, staleTime: 30_000, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}
