/**
 * Rules every provider kind's request converter shares: which inbound form each kind speaks
 * natively, what happens to a field a kind cannot honour (dropped and reported; refused in strict
 * mode or when the model would not see something it was sent), and reading canonical tool
 * arguments (JSON text) as the object the Messages and Gemini wires want.
 */
import type { CanonicalReasoning, CanonicalRequest, PublicFormName } from '../../canonical/model';
import { clientFieldName, isNeverDropped } from '../../canonical/translation';
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
  return request.inbound?.form === nativeForm[kind] && !request.inbound.rebuilt
    ? request.inbound.body
    : null;
}

/** The inbound headers a same-form upstream gets as the client sent them; none for another form. */
export function sameFormHeaders(
  request: CanonicalRequest,
  kind: UpstreamKind,
): Record<string, string> {
  return request.inbound?.form === nativeForm[kind] && !request.inbound.rebuilt
    ? (request.inbound.headers ?? {})
    : {};
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

/**
 * A field (a dotted path of the client's request) this provider cannot honour: dropped and
 * reported, unless the client asked for strict mode or the field is what the model sees
 * (`canonical/translation.ts`); then the 400 that names it.
 */
export function dropField(
  request: CanonicalRequest,
  field: string,
  config: ProviderConfig,
  why?: string,
): void {
  const form = request.inbound?.form;
  if (request.requireParameters || (form !== undefined && isNeverDropped(form, field))) {
    throw unsupportedField(field, config, why);
  }
  request.translation?.dropped.push(field);
}

/** A value this provider takes only changed (`temperature=1.5->1`): reported, or refused if strict. */
export function adjustField(
  request: CanonicalRequest,
  field: string,
  change: { from: string | number; to: string | number },
  config: ProviderConfig,
  why: string,
): void {
  if (request.requireParameters) throw unsupportedField(field, config, why);
  request.translation?.adjusted.push(`${field}=${change.from}->${change.to}`);
}

/** Drops (or refuses) the fields of a cross-form request the canonical request could not map. */
export function dropUnmappedFields(request: CanonicalRequest, config: ProviderConfig): void {
  for (const field of request.inbound?.unmappedFields ?? []) dropField(request, field, config);
}

/** Drops the inbound headers only a same-form upstream understands (`anthropic-beta`). */
export function dropInboundHeaders(request: CanonicalRequest, config: ProviderConfig): void {
  for (const name of Object.keys(request.inbound?.headers ?? {})) {
    // The protocol version the client speaks: the converter speaks the provider's own.
    if (name === 'anthropic-version') continue;
    dropField(request, `headers.${name}`, config);
  }
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

/** The client's fields that ask for reasoning, in each form (`reasoning` for a request of none). */
export function reasoningFields(
  form: PublicFormName | undefined,
  body: Record<string, unknown> | undefined,
): string[] {
  if (form === undefined || body === undefined) return ['reasoning'];
  switch (form) {
    case 'chat_completions':
      return ['reasoning_effort', 'reasoning'].filter((field) => body[field] != null);
    case 'messages': {
      const config = body.output_config as Record<string, unknown> | undefined;
      // `output_config` may also carry a format, which is mapped: then only its effort goes.
      const effort =
        config?.effort == null
          ? []
          : config.format == null
            ? ['output_config']
            : ['output_config.effort'];
      return [...(body.thinking == null ? [] : ['thinking']), ...effort];
    }
    case 'gemini': {
      const generation = body.generationConfig as Record<string, unknown> | undefined;
      return generation?.thinkingConfig == null ? [] : ['generationConfig.thinkingConfig'];
    }
    case 'responses':
      return body.reasoning == null ? [] : ['reasoning'];
  }
}

/**
 * Reports the reasoning a cross-form request asked for as dropped when the route's model does
 * not reason (`droppedCanonicalFields`): its converter sends none, and the client is told.
 */
export function dropUnsupportedReasoning(
  request: CanonicalRequest,
  route: ModelRoute,
  config: ProviderConfig,
): void {
  if (!droppedCanonicalFields(request, route).includes('reasoning') || !request.inbound) return;
  for (const field of reasoningFields(request.inbound.form, request.inbound.body))
    dropField(request, field, config, 'the model does not reason');
}

/**
 * What every kind does first with a request of another form: the fields it could not map, the
 * reasoning its model cannot take and the client's form-specific headers are dropped and reported.
 */
export function dropWhatCannotGo(
  request: CanonicalRequest,
  route: ModelRoute,
  config: ProviderConfig,
): void {
  dropUnmappedFields(request, config);
  dropUnsupportedReasoning(request, route, config);
  dropInboundHeaders(request, config);
  dropPromptCacheFields(request, config);
}

/**
 * Prompt-cache hints go only where they mean something: cache breakpoints (`cache_control`) to
 * Anthropic, OpenAI's `prompt_cache_key` to an OpenAI-compatible server; another kind drops them
 * and says so (its own prefix cache, if any, needs neither).
 */
export function dropPromptCacheFields(request: CanonicalRequest, config: ProviderConfig): void {
  if (config.kind !== 'anthropic') {
    for (const field of request.inbound?.cacheFields ?? []) dropField(request, field, config);
  }
  if (request.promptCacheKey !== undefined && config.kind !== 'openai-compatible')
    dropField(request, 'prompt_cache_key', config);
}

/** The request's stop sequences, the first `max` of them; more are reported as adjusted. */
export function stopSequencesWithin(
  request: CanonicalRequest,
  max: number,
  config: ProviderConfig,
  why: string,
): string[] {
  const stop = request.stop;
  if (stop.length <= max) return stop;
  adjustField(
    request,
    clientFieldName(request, 'stop'),
    { from: `${stop.length} sequences`, to: `${max} sequences` },
    config,
    why,
  );
  return stop.slice(0, max);
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
