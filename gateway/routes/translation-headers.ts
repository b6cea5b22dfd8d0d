/**
 * The translation policy at the HTTP edge: strict mode asked for by header, the headers a
 * same-form upstream gets as sent, and the answer headers that report what was dropped or changed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { gatewayAdjustedParamsHeader, gatewayDroppedParamsHeader } from '../../contract/gateway';
import type { CanonicalRequest, TranslationReport } from '../canonical/model';

export const REQUIRE_PARAMETERS_HEADER = 'x-gateway-require-parameters';

/** The request headers every inference route reads, for the OpenAPI document. */
export const translationHeadersSchema = z.object({
  [REQUIRE_PARAMETERS_HEADER]: z.enum(['true', 'false']).optional().meta({
    description:
      'true: refuse (400, naming the field) what the chosen provider cannot honour, instead of dropping it.',
  }),
});

/**
 * Adds to the canonical request what the HTTP request says about translation: strict mode (the
 * header on any form; the chat form's `provider.require_parameters` was read by the form) and the
 * form's pass-through headers.
 */
export function withRequestTranslation(
  canonical: CanonicalRequest,
  request: IncomingMessage,
  passHeaders: readonly string[] = [],
): CanonicalRequest {
  const strict = String(request.headers[REQUIRE_PARAMETERS_HEADER] ?? '').toLowerCase() === 'true';
  const headers: Record<string, string> = {};
  for (const name of passHeaders) {
    const value = request.headers[name];
    if (typeof value === 'string' && value !== '') headers[name] = value;
  }
  return {
    ...canonical,
    ...((strict || canonical.requireParameters) && { requireParameters: true }),
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
