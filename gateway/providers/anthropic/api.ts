/**
 * Where and how an Anthropic Messages call is sent: one endpoint, the key in `x-api-key` and the
 * API version in `anthropic-version`. The providers file's `headers` may pin another version or
 * add `anthropic-beta`; they can never replace the key.
 * @see https://docs.anthropic.com/en/api/messages
 * @see https://docs.anthropic.com/en/api/versioning
 */
import type { ProviderConfig } from '../upstream/provider-config';
import { trimBase } from '../upstream/request-fields';

export const ANTHROPIC_VERSION = '2023-06-01';

export const messagesUrl = (baseUrl: string) => `${trimBase(baseUrl)}/v1/messages`;

/** Headers whose names the configured extras may not use: the key is ours to set, once. */
const RESERVED = new Set(['x-api-key', 'authorization']);

export function anthropicHeaders(config: ProviderConfig): Record<string, string> {
  const headers: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION };
  // Names are lower-cased so an `Anthropic-Version` in the file replaces ours instead of doubling it.
  for (const [name, value] of Object.entries(config.headers)) {
    const lower = name.toLowerCase();
    if (!RESERVED.has(lower)) headers[lower] = value;
  }
  // A local proxy may need no key; an empty `x-api-key` would only confuse it.
  if (config.apiKey) headers['x-api-key'] = config.apiKey;
  return headers;
}
