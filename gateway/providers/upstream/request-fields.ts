/**
 * Rules every provider kind's request converter shares: which inbound form each kind speaks
 * natively, the refusal of a field a kind cannot honour (never dropped silently), and reading
 * canonical tool arguments (JSON text) as the object the Messages and Gemini wires want.
 */
import type { CanonicalRequest, PublicFormName } from '../../canonical/model';
import { invalidRequest, type GatewayError } from '../../errors';
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
