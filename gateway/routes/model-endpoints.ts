/**
 * `GET /v1/models/{author}/{model}/endpoints` (the "provider endpoints of a model"): the providers
 * serving a model, in the order they are tried, with each one's upstream model, prices, limits,
 * current status and availability over the last 30 minutes; and `…/endpoints/stats`, the same
 * figures as a series over a day or a week. No key needed, like the catalog; no provider address
 * or key is ever shown, and the figures sum every key's traffic, never one tenant's.
 */
import { z } from 'zod';
import {
  modelEndpointSchema,
  modelEndpointStatsSchema,
  type EndpointStatsBucket,
} from '../../contract/gateway';
import { nanosToDecimalString } from '../shared/money';
import { cachePricing } from '../catalog/catalog';
import { chatErrorBody } from '../forms/openai/error-shape';
import { sendJson } from '../http/respond';
import { addRoute, jsonContent, named, type RouteDoc, type RouteFamily } from './route-doc';
import { minuteOf } from '../operability/provider-availability';
import { histogramQuantile, type ProviderStatsRow } from '../store/provider-stats';
import { parseOrRefuse, queryOf, withErrors } from './route-kit';

/** `{author}/{model}` may carry a `:variant`; the path's last segment is always `endpoints`. */
export const MODEL_ENDPOINTS_PATH = /^\/v1\/models\/(?<id>[^/]+\/[^/]+)\/endpoints$/;
export const MODEL_ENDPOINT_STATS_PATH = /^\/v1\/models\/(?<id>[^/]+\/[^/]+)\/endpoints\/stats$/;

/** The windows of the stats route: how many buckets of how many minutes. */
const WINDOWS = {
  '24h': { buckets: 24, minutes: 60 },
  '7d': { buckets: 28, minutes: 360 },
} as const;

const statsQuerySchema = z.object({
  window: z.enum(['24h', '7d']).default('24h'),
});

const share = (part: number, whole: number) =>
  whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000;

/** A summed row's figures as the routes give them; all null without data. */
function figures(row: ProviderStatsRow | undefined) {
  return {
    uptime: row ? share(row.successes, row.requests) : null,
    latency_ms_p50: row ? histogramQuantile(row.latency, 0.5) : null,
    latency_ms_p95: row ? histogramQuantile(row.latency, 0.95) : null,
    ttft_ms_p50: row ? histogramQuantile(row.ttft, 0.5) : null,
    output_tokens_per_second:
      row && row.generationMs > 0
        ? Math.round((row.outputTokens / row.generationMs) * 1_000 * 100) / 100
        : null,
  };
}

const listModelEndpoints: RouteDoc = {
  operationId: 'listModelEndpoints',
  metricsRoute: 'model_endpoints',
  method: 'GET',
  path: '/v1/models/{author}/{model}/endpoints',
  summary: 'The providers serving a model',
  description: 'In the order they are tried, with prices, limits and current status.',
  tag: 'Catalog',
  auth: 'none',
  pathParams: z.object({
    author: z.string().meta({ examples: ['sim'] }),
    model: z
      .string()
      .meta({ description: 'The model, with its :variant if any.', examples: ['chat-standard'] }),
  }),
  responses: {
    200: jsonContent(
      "The model's providers.",
      named(
        'ModelEndpointList',
        z.looseObject({
          object: z.literal('list'),
          model: z.string(),
          data: z.array(modelEndpointSchema),
        }),
      ),
    ),
  },
  errors: { form: 'gateway', statuses: [404] },
};

const getModelEndpointStats: RouteDoc = {
  operationId: 'getModelEndpointStats',
  metricsRoute: 'model_endpoint_stats',
  method: 'GET',
  path: '/v1/models/{author}/{model}/endpoints/stats',
  summary: "A model's providers' availability over time",
  description:
    'Per provider, hour buckets over 24 hours or 6-hour buckets over 7 days (the last one still filling): attempts by outcome, uptime, latency and time to first token, over all keys.',
  tag: 'Catalog',
  auth: 'none',
  pathParams: listModelEndpoints.pathParams!,
  query: statsQuerySchema,
  responses: {
    200: jsonContent(
      "The model's providers' series.",
      named('ModelEndpointStats', modelEndpointStatsSchema),
    ),
  },
  errors: { form: 'gateway', statuses: [400, 404] },
};

export const modelEndpointRoutes: RouteFamily<'catalog' | 'names' | 'pipeline' | 'store'> = {
  routes: [listModelEndpoints, getModelEndpointStats],
  add(router, parts) {
    addRoute(
      router,
      listModelEndpoints,
      withErrors(chatErrorBody, async ({ response, params }) => {
        const id = decodeURIComponent(params.id ?? '');
        // An alias or a preset lists its members' providers, each entry naming its model.
        const named = parts.names.alias(id) ?? parts.names.preset(id);
        const models = named ? parts.names.reach(id) : [parts.catalog.resolve(id)];
        // The last 30 minutes, the current one included, as one bucket per provider.
        const now = minuteOf(Date.now());
        const served = await Promise.all(
          models.map(async (model) => ({
            model,
            recent: await parts.store.providerStats.series(model.id, now - 29, now + 1, 30),
          })),
        );
        const routes = served.flatMap(({ model, recent }) =>
          model.routes.map((route) => ({ model, recent, route })),
        );
        sendJson(response, 200, {
          object: 'list',
          model: named ? id : models[0]!.id,
          data: routes.map(({ model, recent, route }, index) => {
            const breaker = parts.pipeline.providerStatus(route.providerId);
            const seen = figures(recent.find((row) => row.provider === route.providerId));
            return {
              ...(named && { model: model.id }),
              provider: route.providerId,
              kind: parts.pipeline.providerKind(route.providerId),
              upstream_model: route.upstreamModel,
              order: index + 1,
              pricing: {
                prompt: nanosToDecimalString(route.promptNanos),
                completion: nanosToDecimalString(route.completionNanos),
                ...cachePricing(route),
              },
              context_length: route.contextLength,
              max_completion_tokens: route.maxCompletionTokens,
              input_modalities: route.inputModalities,
              supported_parameters: route.supportedParameters,
              status: breaker?.status === 'cooling_down' ? 'cooling_down' : 'healthy',
              retry_after: breaker?.retryAfterSeconds ?? null,
              uptime_last_30m: seen.uptime,
              latency_ms_p50: seen.latency_ms_p50,
              ttft_ms_p50: seen.ttft_ms_p50,
            };
          }),
        });
      }),
      MODEL_ENDPOINTS_PATH,
    );
    addRoute(
      router,
      getModelEndpointStats,
      withErrors(chatErrorBody, async ({ response, params, url }) => {
        const model = parts.catalog.resolve(decodeURIComponent(params.id ?? ''));
        const query = parseOrRefuse(statsQuerySchema, queryOf(url), 'query parameter');
        const window = WINDOWS[query.window];
        // Buckets aligned to their size, the last one holding the current minute.
        const end = (Math.floor(minuteOf(Date.now()) / window.minutes) + 1) * window.minutes;
        const from = end - window.buckets * window.minutes;
        const rows = await parts.store.providerStats.series(model.id, from, end, window.minutes);
        const providers = [...new Set(model.routes.map((route) => route.providerId))];
        sendJson(
          response,
          200,
          {
            object: 'endpoint_stats',
            model: model.id,
            window: query.window,
            bucket_seconds: window.minutes * 60,
            data: providers.map((provider) => ({
              provider,
              buckets: Array.from({ length: window.buckets }, (_, index): EndpointStatsBucket => {
                const start = from + index * window.minutes;
                const row = rows.find((it) => it.provider === provider && it.minute === start);
                const { uptime, ...latencies } = figures(row);
                return {
                  start: start * 60,
                  requests: row?.requests ?? 0,
                  successes: row?.successes ?? 0,
                  failures: row?.failures ?? {
                    timeout: 0,
                    server_error: 0,
                    rate_limited: 0,
                    connection: 0,
                    other: 0,
                  },
                  uptime,
                  ...latencies,
                };
              }),
            })),
          },
          { 'cache-control': 'no-store' },
        );
      }),
      MODEL_ENDPOINT_STATS_PATH,
    );
  },
};
