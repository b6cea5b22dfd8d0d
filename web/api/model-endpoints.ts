/** `GET /api/catalog/endpoints?model=`: the providers of one model, fetched as its panel opens. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import {
  modelEndpointStatsAnswerSchema,
  modelEndpointsSchema,
  type EndpointStatsWindow,
  type ModelEndpoints,
} from '../../contract/workbench-api';
import { apiGet, withQuery } from '../lib/api-client';

export function fetchModelEndpoints(model: string, signal?: AbortSignal): Promise<ModelEndpoints> {
  return apiGet(withQuery('/api/catalog/endpoints', { model }), modelEndpointsSchema, { signal });
}

/**
 * Milliseconds until the first cooling-down provider is due to be tried again (at least two
 * seconds), or null when none is cooling down.
 */
export function nextRetryMs(endpoints: ModelEndpoints | undefined): number | null {
  const waits = (endpoints?.endpoints ?? [])
    .filter((endpoint) => endpoint.status === 'cooling_down')
    .map((endpoint) => endpoint.retry_after ?? 0);
  return waits.length === 0 ? null : Math.max(2, Math.min(...waits)) * 1000;
}

export function modelEndpointsQueryOptions(model: string) {
  return queryOptions({
    queryKey: ['model-endpoints', model],
    queryFn: ({ signal }) => fetchModelEndpoints(model, signal),
    // A provider's status changes within seconds; a reopened panel asks again after a short while.
    staleTime: 10_000,
    // While a provider cools down, look again when it is due back, so the badge does not lie.
    refetchInterval: (query) => {
      const wait = nextRetryMs(query.state.data);
      return wait === null ? false : wait + 500;
    },
  });
}

export function useModelEndpoints(model: string | null) {
  return useQuery({ ...modelEndpointsQueryOptions(model ?? ''), enabled: model !== null });
}

/** `GET /api/catalog/endpoints/stats?model=&window=`: each provider's traffic series. */
export function modelEndpointStatsQueryOptions(model: string, window: EndpointStatsWindow) {
  return queryOptions({
    queryKey: ['model-endpoint-stats', model, window],
    queryFn: ({ signal }) =>
      apiGet(
        withQuery('/api/catalog/endpoints/stats', { model, window }),
        modelEndpointStatsAnswerSchema,
        { signal },
      ),
    // Buckets are an hour or more long; a minute-old series is still the right picture.
    staleTime: 60_000,
  });
}

export function useModelEndpointStats(model: string | null, window: EndpointStatsWindow) {
  return useQuery({
    ...modelEndpointStatsQueryOptions(model ?? '', window),
    enabled: model !== null,
  });
}
