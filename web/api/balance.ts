/** `GET /api/balance?profile=`: one profile's balance and derived state. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { balanceViewSchema, type BalanceView } from '../../contract/workbench-api';
import { apiGet, withQuery } from '../lib/api-client';

export function fetchBalance(profile: string, signal?: AbortSignal): Promise<BalanceView> {
  return apiGet(withQuery('/api/balance', { profile }), balanceViewSchema, { signal });
}

export function balanceQueryOptions(profile: string) {
  return queryOptions({
    queryKey: ['balance', profile],
    queryFn: ({ signal }) => fetchBalance(profile, signal),
    // Consumption settles asynchronously anyway; a short stale time keeps the figure fresh
    // without hammering the gateway on every render.
    staleTime: 10_000,
  });
}

/** The balance of `profile`; idle while no profile is chosen. */
export function useBalance(profile: string | null) {
  return useQuery({
    ...balanceQueryOptions(profile ?? ''),
    enabled: profile !== null && profile !== '',
  });
}
