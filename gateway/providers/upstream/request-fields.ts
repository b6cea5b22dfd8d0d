/**
 * Rules every provider kind's request converter shares: which inbound form each kind speaks
 * natively, the refusal of a field a kind cannot honour (never dropped silently), and reading
 * canonical tool arguments (JSON text) as the object the Messages and Gemini wires want.
 */
import type { CanonicalReasoning, CanonicalRequest, PublicFormName } from '../../canonical/model';
import { invalidRequest, type GatewayError } from '../../errors';
import type { ModelRoute } from '../provider';
import type { ProviderConfig, UpstreamKind } from './provider-config';

/** The public form each upstream kind speaks natively: same-form requests pass through. */
export const nativeForm: Record<UpstreamKind, PublicFormName> = {
  'openai-compatible': 'chat_completions',
  anthropic: 'messages',
  gemini: 'gemini',
};

/** The inbound body when the request came in on this kind's own form, else null. */
export function sameFormBody(
  request: CanonicalRequest,
  kind: UpstreamKind,
): Record<string, unknown> | null {
  return request.inbound?.form === nativeForm[kind] ? request.inbound.body : null;
}

/** The 400 for a field this provider cannot honour. */
export function unsupportedField(
  field: string,
  config: ProviderConfig,
  why?: string,
): GatewayError {
  return invalidRequest(
    `Field '${field}' cannot be sent to provider '${config.id}' (${config.kind})` +
      `${why ? `: ${why}` : ''}. Remove it, or use a model served by a provider of the same form.`,
  );
}

/** Refuses a cross-form request that carries fields the canonical request could not map. */
export function refuseUnmappedFields(request: CanonicalRequest, config: ProviderConfig): void {
  const field = request.inbound?.unmappedFields[0];
  if (field !== undefined) throw unsupportedField(field, config);
}

/** Canonical tool arguments (JSON text) → an object; anything else becomes `{}`. */
export function parseToolArguments(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** The base URL without a trailing slash, so paths join cleanly. */
export const trimBase = (baseUrl: string) => baseUrl.replace(/\/+$/, '');

/**
 * The request's reasoning, when the model takes it: a model whose `supported_parameters` leave
 * out `reasoning` gets none (see `droppedCanonicalFields`).
 */
export function reasoningFor(
  request: CanonicalRequest,
  route: ModelRoute,
): CanonicalReasoning | null {
  if (!request.reasoning) return null;
  return route.supportedParameters.includes('reasoning') ? request.reasoning : null;
}

/**
 * The canonical fields a request carries that this route's model cannot take, so they are not
 * sent (dotted paths of the canonical request). The translation policy reports them
 * (`x-gateway-dropped-params`, the record's `translation`); each kind's converter leaves them out.
 */
export function droppedCanonicalFields(request: CanonicalRequest, route: ModelRoute): string[] {
  const dropped: string[] = [];
  if (request.reasoning && !route.supportedParameters.includes('reasoning'))
    dropped.push('reasoning');
  return dropped;
}

/**
 * Thinking tokens for an effort, for the kinds that take a budget (Anthropic, Gemini 2.5). The
 * steps follow OpenRouter's reading of effort as a share of the output bound, at fixed sizes.
 * @see https://openrouter.ai/docs/use-cases/reasoning-tokens#reasoning-effort-level
 */
export function budgetForEffort(effort: CanonicalReasoning['effort']): number {
  switch (effort) {
    case 'none':
      return 0;
    case 'minimal':
      return 1_024;
    case 'low':
      return 2_048;
    case 'high':
      return 16_384;
    case 'xhigh':
      return 32_768;
    case 'medium':
    default:
      return 8_192;
  }
}

/** The effort closest to a budget, for the kinds that take only an effort (OpenAI). */
export function effortForBudget(budget: number): NonNullable<CanonicalReasoning['effort']> {
  if (budget <= 1_024) return 'minimal';
  if (budget <= 4_096) return 'low';
  if (budget <= 12_288) return 'medium';
  return 'high';
}
