/** `GET /api/balance?profile=`: one profile's balance and key state. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { balanceViewSchema, type BalanceView } from '../../contract/workbench-api';
import { apiGet, withQuery } from '../lib/api-client';
import { listAllows } from '../../contract/model-patterns';
import { useMemo } from 'react';

/**
 * How often a live view asks again: a key change made with the gateway's command line (a parent
 * disabled, an expiry moved) shows within this long, without a reload.
 */
export const balancePollIntervalMs = 5_000;

export function fetchBalance(profile: string, signal?: AbortSignal): Promise<BalanceView> {
  return apiGet(withQuery('/api/balance', { profile }), balanceViewSchema, { signal });
}

/** The balance query's key; asked again after anything that spends (a reply ending). */
export const balanceQueryKey = (profile: string) => ['balance', profile] as const;

export function balanceQueryOptions(profile: string) {
  return queryOptions({
    queryKey: balanceQueryKey(profile),
    queryFn: ({ signal }) => fetchBalance(profile, signal),
    // Consumption settles asynchronously anyway; a short stale time keeps the figure fresh
    // without hammering the gateway on every render.
    staleTime: 4_000,
  });
}

/**
 * Which models `profile`'s key may use, from its balance: `allows` says of a model id, and `list`
 * is what to tell a person when a model is missing (null: every model).
 */
export function useAllowedModels(profile: string | null): {
  list: string[] | null;
  allows(id: string): boolean;
} {
  const balance = useBalance(profile).data?.balance;
  const own = balance?.allowed_models ?? null;
  const parents = balance?.parent_allowed_models ?? null;
  return useMemo(
    () => ({
      // Both lists must allow a model; the narrower one (the key's own, checked against its
      // parent's when set) is what a person is told.
      list: own ?? parents,
      allows: (id: string) => listAllows(own, id) && listAllows(parents, id),
    }),
    [own, parents],
  );
}

/**
 * The balance of `profile`; idle while no profile is chosen. `live` keeps it current while the
 * page is visible: polled, and asked again when the window gets the focus back.
 */
export function useBalance(profile: string | null, options: { live?: boolean } = {}) {
  return useQuery({
    ...balanceQueryOptions(profile ?? ''),
    enabled: profile !== null && profile !== '',
    ...(options.live ? { refetchInterval: balancePollIntervalMs, refetchOnWindowFocus: true } : {}),
  });
}
