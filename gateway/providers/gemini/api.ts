/**
 * The Gemini API's endpoints and authentication. The key goes in the `x-goog-api-key` header,
 * never in a `?key=` query: a URL ends up in logs and error messages, a header does not.
 * @see https://ai.google.dev/api/generate-content#method:-models.generatecontent
 * @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
import type { ProviderConfig } from '../upstream/provider-config';
import { trimBase } from '../upstream/request-fields';

/** The API version the endpoints live under (`parametersJsonSchema` and function ids need it). */
const API_VERSION = 'v1beta';

/**
 * The call's URL. `baseUrl` is the host as the vendor's clients take it
 * (`https://generativelanguage.googleapis.com`). The vendor lists models as `models/<name>`;
 * either spelling works in the providers file. `alt=sse` asks for server-sent events instead of
 * one long JSON array.
 */
export function geminiUrl(baseUrl: string, upstreamModel: string, stream: boolean): string {
  const model = encodeURIComponent(upstreamModel.replace(/^models\//, ''));
  const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  return `${trimBase(baseUrl)}/${API_VERSION}/models/${model}:${method}`;
}

/** The provider's extra headers, then the key, so no extra header can replace it. */
export function geminiHeaders(config: ProviderConfig): Record<string, string> {
  const extra = Object.entries(config.headers).filter(
    ([name]) => name.toLowerCase() !== 'x-goog-api-key',
  );
  return {
    ...Object.fromEntries(extra),
    ...(config.apiKey ? { 'x-goog-api-key': config.apiKey } : {}),
  };
}
