/**
 * `GET /v1/generation?id=<trace id>`: the spec's planned generation record, made real. Visible
 * to the key that made the request and to its parent; to any other key it does not exist (404),
 * so ids cannot be probed.
 */
import { authenticate } from '../auth/authenticate';
import { nanosToUsd } from '../billing/money';
import { invalidRequest, notFound } from '../errors';
import { sendJson } from '../http/respond';
import type { Router } from '../http/router';
import { chatErrorBody } from '../forms/openai/error-shape';
import { withErrors, type GatewayParts } from './route-kit';

export function addGenerationRoutes(router: Router, parts: GatewayParts): void {
  router.add(
    'GET',
    '/v1/generation',
    withErrors(chatErrorBody, ({ request, response, url }) => {
      const key = authenticate(request, url, 'chat_completions', parts.registry);
      const id = url.searchParams.get('id');
      if (!id)
        throw invalidRequest(
          "Invalid field 'id': give the request's trace id (its cf-ray) as ?id=.",
        );
      const record = parts.store.getGeneration(id);
      const owner = record ? parts.store.getKey(record.keyId) : undefined;
      if (!record || !owner || (owner.id !== key.id && owner.parentId !== key.id)) {
        throw notFound(`No generation record ${id.slice(0, 64)} is visible to this key.`);
      }
      sendJson(response, 200, {
        object: 'generation',
        id: record.id,
        model: record.model,
        provider: record.provider,
        upstream_model: record.upstreamModel,
        form: record.form,
        streamed: record.streamed,
        prompt_tokens: record.promptTokens,
        completion_tokens: record.completionTokens,
        cost_usd: nanosToUsd(record.costNanos),
        finish_reason: record.finishReason,
        outcome: record.outcome,
        settlement: record.settled ? 'settled' : 'pending',
        created_at: record.createdAt,
        settled_at: record.settledAt,
        latency_ms: record.latencyMs,
        attempts: record.attempts.map((attempt) => ({
          provider: attempt.provider,
          status: attempt.status,
          latency_ms: attempt.latencyMs,
        })),
        usage_estimated: record.usageEstimated,
        charge_capped: record.chargeCapped,
      });
    }),
  );
}
