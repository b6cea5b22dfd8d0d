/**
 * `GET /api/catalog/endpoints?model=<id>`: the providers serving a catalog model, in the order
 * the gateway tries them, with each one's prices and status. It reads the gateway's
 * `GET /v1/models/{author}/{model}/endpoints` (no key needed, like the catalog) as leniently as
 * the catalog: an entry without a provider id is skipped and counted, the rest pass.
 */
import { Router } from 'express';
import {
  modelEndpointListSchema,
  modelEndpointSchema,
  modelEndpointStatsSchema,
} from '../../contract/gateway';
import {
  modelEndpointStatsQuerySchema,
  modelEndpointsQuerySchema,
  type EndpointStatsWindow,
  type ModelEndpointStatsAnswer,
  type ModelEndpoints,
  type ProviderEndpoint,
  type ProviderStatus,
} from '../../contract/workbench-api';
import { abortOnClientClose } from '../core/client-close';
import type { WorkbenchContext } from '../core/context';
import { parseInput, readGatewayAnswer } from '../core/errors';

/** A path segment, encoded; `:` stays readable (`…/chat:free/endpoints`), as paths allow it. */
function pathSegment(text: string): string {
  return encodeURIComponent(text).replaceAll('%3A', ':');
}

/**
 * The gateway path of a model's providers. The id's author and model parts are encoded each on
 * its own, so an id with a further `/` cannot reach another route (the gateway answers 404).
 */
export function modelEndpointsPath(modelId: string): string {
  const slash = modelId.indexOf('/');
  const author = slash > 0 ? modelId.slice(0, slash) : '';
  const model = slash > 0 ? modelId.slice(slash + 1) : modelId;
  return `/v1/models/${pathSegment(author)}/${pathSegment(model)}/endpoints`;
}

/**
 * The gateway's status word, mapped to the ones the workbench knows; anything else is `unknown`
 * rather than an error (the route is a planned entry and may grow states).
 */
export function providerStatusOf(status: string | undefined): ProviderStatus {
  switch (status) {
    case 'healthy':
      return 'healthy';
    case 'cooling_down':
      return 'cooling_down';
    default:
      return 'unknown';
  }
}

/** One raw entry → a provider endpoint, or null when it has no provider id. */
export function normalizeEndpoint(entry: unknown, index: number): ProviderEndpoint | null {
  const parsed = modelEndpointSchema.safeParse(entry);
  if (!parsed.success || parsed.data.provider.trim() === '') return null;
  const endpoint = parsed.data;
  return {
    provider: endpoint.provider,
    kind: endpoint.kind ?? null,
    upstream_model: endpoint.upstream_model ?? null,
    order: endpoint.order ?? index + 1,
    prompt_price: endpoint.pricing?.prompt ?? null,
    completion_price: endpoint.pricing?.completion ?? null,
    context_length: endpoint.context_length ?? null,
    max_completion_tokens: endpoint.max_completion_tokens ?? null,
    status: providerStatusOf(endpoint.status),
    retry_after: endpoint.retry_after ?? null,
    uptime_last_30m: endpoint.uptime_last_30m ?? null,
    latency_ms_p50: endpoint.latency_ms_p50 ?? null,
    ttft_ms_p50: endpoint.ttft_ms_p50 ?? null,
  };
}

/**
 * Reads the providers of a catalog model. A model the catalog does not have is a 400 naming
 * `model`; a gateway that fails answers with its staged error (connect, first byte, deadline…).
 */
export async function fetchModelEndpoints(
  context: WorkbenchContext,
  modelId: string,
  signal?: AbortSignal,
): Promise<ModelEndpoints> {
  const model = await context.catalog.find(modelId, 'model');
  const answer = await context.gateway.collect({
    method: 'GET',
    path: modelEndpointsPath(model.id),
    signal,
  });
  const list = readGatewayAnswer(
    answer,
    modelEndpointListSchema,
    'The gateway’s provider list is not a list (expected a JSON object with a data array).',
    context.profiles.allKeys(),
  );
  const endpoints: ProviderEndpoint[] = [];
  let skipped = 0;
  list.data.forEach((entry, index) => {
    const endpoint = normalizeEndpoint(entry, index);
    if (endpoint) endpoints.push(endpoint);
    else skipped += 1;
  });
  return {
    model: model.id,
    endpoints,
    fetched_at: Date.now(),
    cf_ray: answer.cfRay,
    skipped,
  };
}

/**
 * Reads a catalog model's per-provider traffic series over `window`. Unlike the provider list,
 * the answer is read strictly through its contract: a bar chart of half-read buckets would lie.
 */
export async function fetchModelEndpointStats(
  context: WorkbenchContext,
  modelId: string,
  window: EndpointStatsWindow,
  signal?: AbortSignal,
): Promise<ModelEndpointStatsAnswer> {
  const model = await context.catalog.find(modelId, 'model');
  const answer = await context.gateway.collect({
    method: 'GET',
    path: `${modelEndpointsPath(model.id)}/stats?window=${window}`,
    signal,
  });
  const stats = readGatewayAnswer(
    answer,
    modelEndpointStatsSchema,
    'The gateway’s provider stats do not have the expected shape (an endpoint_stats object).',
    context.profiles.allKeys(),
  );
  return { ...stats, cf_ray: answer.cfRay };
}

export function createModelEndpointsRouter(context: WorkbenchContext): Router {
  const router = Router();
  router.get('/catalog/endpoints', async (request, response) => {
    const query = parseInput(modelEndpointsQuerySchema, request.query, 'query');
    const signal = abortOnClientClose(response);
    const endpoints = await fetchModelEndpoints(context, query.model, signal);
    response.locals.cfRay = endpoints.cf_ray;
    response.json(endpoints);
  });
  router.get('/catalog/endpoints/stats', async (request, response) => {
    const query = parseInput(modelEndpointStatsQuerySchema, request.query, 'query');
    const signal = abortOnClientClose(response);
    const stats = await fetchModelEndpointStats(context, query.model, query.window, signal);
    response.locals.cfRay = stats.cf_ray;
    response.json(stats);
  });
  return router;
}
