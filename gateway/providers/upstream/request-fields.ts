/**
 * Rules every provider kind's request converter shares: which inbound form each kind speaks
 * natively, what happens to a field a kind cannot honour (dropped and reported; refused in strict
 * mode or when the model would not see something it was sent), and reading canonical tool
 * arguments (JSON text) as the object the Messages and Gemini wires want.
 */
import type { CanonicalRequest, PublicFormName } from '../../canonical/model';
import { isNeverDropped } from '../../canonical/translation';
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

/** The inbound headers a same-form upstream gets as the client sent them; none for another form. */
export function sameFormHeaders(
  request: CanonicalRequest,
  kind: UpstreamKind,
): Record<string, string> {
  return request.inbound?.form === nativeForm[kind] ? (request.inbound.headers ?? {}) : {};
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
