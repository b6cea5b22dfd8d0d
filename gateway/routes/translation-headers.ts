/**
 * The translation policy at the HTTP edge: strict mode asked for by header, the headers a
 * same-form upstream gets as sent, and the answer headers that report what was dropped or changed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { gatewayAdjustedParamsHeader, gatewayDroppedParamsHeader } from '../../contract/gateway';
import { providerPreferencesHeader, providerPreferencesSchema } from '../../contract/routing';
import type { CanonicalRequest, TranslationReport } from '../canonical/model';
import { invalidRequest } from '../errors';
import { mergeRouting } from '../forms/request-routing';
import { readProviderPreferences } from '../pipeline/provider-preferences';

export const REQUIRE_PARAMETERS_HEADER = 'x-gateway-require-parameters';

/** The request headers every inference route reads, for the OpenAPI document. */
export const translationHeadersSchema = z.object({
  [REQUIRE_PARAMETERS_HEADER]: z.enum(['true', 'false']).optional().meta({
    description:
      'true: refuse (400, naming the field) what the chosen provider cannot honour, instead of dropping it.',
  }),
  [providerPreferencesHeader]: z
    .string()
    .optional()
    .meta({
      description:
        "Provider preferences as JSON, the chat body's `provider` object (order, only, ignore, allow_fallbacks, sort, max_price, require_parameters); a body's own `provider` options win. See docs/routing.md.",
      examples: ['{"sort":"price","max_price":{"prompt":1,"completion":4}}'],
    }),
});

/** The preferences header's routing, or the 400 that names what is wrong with it. */
function headerRouting(request: IncomingMessage) {
  const raw = request.headers[providerPreferencesHeader];
  if (typeof raw !== 'string' || raw.trim() === '') return { routing: undefined, strict: false };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw invalidRequest(
      `Header '${providerPreferencesHeader}' is not JSON. Send an object such as {"sort":"price"}.`,
    );
  }
  const parsed = providerPreferencesSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.length > 0 ? `.${issue.path.join('.')}` : '';
    throw invalidRequest(`Header '${providerPreferencesHeader}'${at}: ${issue.message}.`);
  }
  const read = readProviderPreferences(parsed.data);
  return {
    routing: { provider: read.provider, models: [], dropped: read.dropped },
    strict: read.requireParameters,
  };
}

/**
 * Adds to the canonical request what the HTTP request says about translation and routing: strict
 * mode (the header on any form; the body's `provider.require_parameters` was read by the form),
 * the provider-preferences header (under the body's own), and the form's pass-through headers.
 */
export function withRequestTranslation(
  canonical: CanonicalRequest,
  request: IncomingMessage,
  passHeaders: readonly string[] = [],
): CanonicalRequest {
  const fromHeader = headerRouting(request);
  const strict =
    fromHeader.strict ||
    String(request.headers[REQUIRE_PARAMETERS_HEADER] ?? '').toLowerCase() === 'true';
  const routing = mergeRouting(fromHeader.routing, canonical.routing);
  const headers: Record<string, string> = {};
  for (const name of passHeaders) {
    const value = request.headers[name];
    if (typeof value === 'string' && value !== '') headers[name] = value;
  }
  return {
    ...canonical,
    ...((strict || canonical.requireParameters) && { requireParameters: true }),
    ...(routing && { routing }),
    ...(canonical.inbound &&
      Object.keys(headers).length > 0 && { inbound: { ...canonical.inbound, headers } }),
  };
}

/** Sets the report's headers; before the answer's headers go out, plain or streamed. */
export function setTranslationHeaders(
  response: ServerResponse,
  report: TranslationReport | null,
): void {
  if (!report) return;
  if (report.dropped.length > 0)
    response.setHeader(gatewayDroppedParamsHeader, report.dropped.join(','));
  if (report.adjusted.length > 0)
    response.setHeader(gatewayAdjustedParamsHeader, report.adjusted.join(','));
}
