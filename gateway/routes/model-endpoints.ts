/**
 * `GET /v1/models/{author}/{model}/endpoints` (the "provider endpoints of a model"): the providers
 * serving a model, in the order they are tried, with each one's upstream model, prices, limits and
 * current status. No key needed, like the catalog; no provider address or key is ever shown.
 */
import { nanosToDecimalString } from '../billing/money';
import { cachePricing } from '../catalog/catalog';
import { chatErrorBody } from '../forms/openai/error-shape';
import { sendJson } from '../http/respond';
import type { Router } from '../http/router';
import { withErrors, type GatewayParts } from './route-kit';

/** `{author}/{model}` may carry a `:variant`; the path's last segment is always `endpoints`. */
export const MODEL_ENDPOINTS_PATH = /^\/v1\/models\/(?<id>[^/]+\/[^/]+)\/endpoints$/;

export function addModelEndpointRoutes(router: Router, parts: GatewayParts): void {
  router.add(
    'GET',
    MODEL_ENDPOINTS_PATH,
    withErrors(chatErrorBody, ({ response, params }) => {
      const model = parts.catalog.resolve(decodeURIComponent(params.id ?? ''));
      sendJson(response, 200, {
        object: 'list',
        model: model.id,
        data: model.routes.map((route, index) => {
          const breaker = parts.pipeline.providerStatus(route.providerId);
          return {
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
          };
        }),
      });
    }),
  );
}
