/** `GET /api/health`: which gateway the BFF talks to, and whether it answers. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { healthSchema, type Health } from '../../contract/workbench-api';
import { apiGet } from '../lib/api-client';

export const healthQueryOptions = queryOptions({
  queryKey: ['health'],
  queryFn: ({ signal }) => apiGet('/api/health', healthSchema, { signal }),
  staleTime: 60_000,
});

/**
 * How often the gateway banner asks: every second while the gateway is down (or the workbench
 * server does not answer), so the banner goes within two seconds of recovery, and every second
 * and a half otherwise, so an outage shows within two seconds too.
 */
export function healthPollIntervalMs(health: Health | undefined, failed: boolean): number {
  return failed || (health !== undefined && !health.reachable) ? 1_000 : 1_500;
}

/** The health of the gateway; `poll` keeps asking while the page is visible (the banner does). */
export function useHealth(options: { poll?: boolean } = {}) {
  const poll = options.poll ?? false;
  return useQuery({
    ...healthQueryOptions,
    refetchInterval: poll
      ? (query) => healthPollIntervalMs(query.state.data, query.state.status === 'error')
      : false,
    // A failed poll is shown at once: the next poll is the retry.
    ...(poll ? { retry: false } : {}),
  });
}
