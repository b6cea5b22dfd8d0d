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

/**
 * `client`: the `anthropic-version` and `anthropic-beta` a Messages client sent, passed on with
 * its body as written (betas it turns on, such as context management, change what it may send).
 * The file's version still wins; its betas are added to the client's.
 */
export function anthropicHeaders(
  config: ProviderConfig,
  client: Record<string, string> = {},
): Record<string, string> {
  const headers: Record<string, string> = {
    'anthropic-version': client['anthropic-version'] ?? ANTHROPIC_VERSION,
  };
  if (client['anthropic-beta']) headers['anthropic-beta'] = client['anthropic-beta'];
  // Names are lower-cased so an `Anthropic-Version` in the file replaces ours instead of doubling it.
  for (const [name, value] of Object.entries(config.headers)) {
    const lower = name.toLowerCase();
    if (RESERVED.has(lower)) continue;
    headers[lower] =
      lower === 'anthropic-beta' && headers[lower] ? `${headers[lower]},${value}` : value;
  }
  // A local proxy may need no key; an empty `x-api-key` would only confuse it.
  if (config.apiKey) headers['x-api-key'] = config.apiKey;
  return headers;
}
