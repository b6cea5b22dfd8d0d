/** `GET /api/catalog`: the whole model catalog, used by the catalog page and the playground. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { catalogSchema, type Catalog } from '../../contract/workbench-api';
import { apiGet } from '../lib/api-client';

export function fetchCatalog(signal?: AbortSignal): Promise<Catalog> {
  return apiGet('/api/catalog', catalogSchema, { signal });
}

export const catalogQueryOptions = queryOptions({
  queryKey: ['catalog'],
  queryFn: ({ signal }) => fetchCatalog(signal),
  // The catalog changes rarely; five minutes keeps page switches instant.
  staleTime: 5 * 60_000,
});

export function useCatalog() {
  return useQuery(catalogQueryOptions);
}
