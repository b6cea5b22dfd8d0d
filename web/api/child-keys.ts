/** `GET /api/profiles/:profile/child-keys`: an account profile's child keys, masked. */
import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query';
import { childKeysSchema, type ChildKeys } from '../../contract/workbench-api';
import { apiGet } from '../lib/api-client';
import { childKeysPath } from './child-key-paths';

/** A child's state moves on its own (spending, expiry): asked again this often while shown. */
export const childKeysPollIntervalMs = 15_000;

export function fetchChildKeys(profile: string, signal?: AbortSignal): Promise<ChildKeys> {
  return apiGet(childKeysPath(profile), childKeysSchema, { signal });
}

export function childKeysQueryOptions(profile: string) {
  return queryOptions({
    queryKey: ['child-keys', profile],
    queryFn: ({ signal }) => fetchChildKeys(profile, signal),
    staleTime: 4_000,
  });
}

/** The child keys of `profile` (an account profile); idle while `enabled` is false. */
export function useChildKeys(profile: string, enabled: boolean) {
  return useQuery({
    ...childKeysQueryOptions(profile),
    enabled,
    refetchInterval: childKeysPollIntervalMs,
    refetchOnWindowFocus: true,
  });
}

/**
 * After a change to a child key: its list, its history, the profiles (a new or removed
 * profile shows in the `Key` picker at once) and the balances (money moved between the account
 * and an allocated child).
 */
export function refreshAfterChildKeyChange(queryClient: QueryClient, profile: string): void {
  void queryClient.invalidateQueries({ queryKey: ['child-keys', profile] });
  void queryClient.invalidateQueries({ queryKey: ['child-key-events', profile] });
  void queryClient.invalidateQueries({ queryKey: ['profiles'] });
  void queryClient.invalidateQueries({ queryKey: ['balance'] });
}
