/** `GET /api/catalog`: the whole model catalog, used by the catalog page and the playground. */
import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { catalogSchema, type Catalog } from '../../contract/workbench-api';
import { apiGet } from '../lib/api-client';

/**
 * The catalog. The BFF keeps it for a short while; `refresh` asks it to fetch a new one from the
 * gateway instead, so a Refresh shows what the gateway says now (or that it fails).
 */
export function fetchCatalog(
  signal?: AbortSignal,
  options: { refresh?: boolean } = {},
): Promise<Catalog> {
  return apiGet(options.refresh ? '/api/catalog?refresh=1' : '/api/catalog', catalogSchema, {
    signal,
  });
}

/**
 * Query clients whose next catalog fetch was asked for with Refresh. Kept apart from the query's
 * options because a retry runs with whatever options the page's observer set last.
 */
const refreshRequested = new WeakSet<object>();

export const catalogQueryOptions = queryOptions({
  queryKey: ['catalog'],
  queryFn: ({ signal, client }) => fetchCatalog(signal, { refresh: refreshRequested.has(client) }),
  // The catalog changes rarely; five minutes keeps page switches instant.
  staleTime: 5 * 60_000,
});

export function useCatalog() {
  return useQuery(catalogQueryOptions);
}

/**
 * Fetches the catalog past the BFF's cache (its retries too), into the same query: the pages
 * showing the catalog follow, and a failure shows as the query's error while the catalog
 * already shown stays.
 */
export function useRefreshCatalog(): () => Promise<void> {
  const queryClient = useQueryClient();
  return useCallback(async () => {
    refreshRequested.add(queryClient);
    try {
      await queryClient.refetchQueries({ queryKey: catalogQueryOptions.queryKey, exact: true });
    } finally {
      refreshRequested.delete(queryClient);
    }
  }, [queryClient]);
}
