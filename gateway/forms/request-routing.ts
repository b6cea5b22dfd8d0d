/**
 * What a request asks of routing, read the same way from the chat and Responses bodies (`provider`,
 * `models`) and from the `x-gateway-provider-preferences` header that every form may send: the
 * options honoured, and those dropped, by dotted path, for the translation report.
 */
import type { ProviderPreferencesBody } from '../../contract/routing';
import type { RequestRouting } from '../canonical/model';
import { readProviderPreferences } from '../pipeline/provider-preferences';

/** The routing a chat or Responses body asks for, or undefined when it asks for nothing. */
export function bodyRouting(body: {
  provider?: ProviderPreferencesBody | null;
  models?: string[] | null;
}): { routing?: RequestRouting; requireParameters?: true } {
  const read = readProviderPreferences(body.provider);
  const models = body.models ?? [];
  const asks = Object.keys(read.provider).length > 0 || read.dropped.length > 0;
  return {
    ...((asks || models.length > 0) && {
      routing: { provider: read.provider, models, dropped: read.dropped },
    }),
    ...(read.requireParameters && { requireParameters: true }),
  };
}

/**
 * The body's routing over the header's: each option the body gives wins, the header fills the
 * rest (so a client may set team-wide preferences in a header and adjust one in the body).
 */
export function mergeRouting(
  header: RequestRouting | undefined,
  body: RequestRouting | undefined,
): RequestRouting | undefined {
  if (!header) return body;
  if (!body) return header;
  return {
    ...body,
    provider: { ...header.provider, ...body.provider },
    models: body.models.length > 0 ? body.models : header.models,
    dropped: [...new Set([...header.dropped, ...body.dropped])],
  };
}

/** A body without the routing fields: they are the gateway's, never an upstream's. */
export function withoutRouting<Body extends Record<string, unknown>>(body: Body): Body {
  const { provider: _provider, models: _models, ...rest } = body;
  return rest as Body;
}
