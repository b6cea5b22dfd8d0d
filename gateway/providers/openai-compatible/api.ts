/**
 * Where and how an OpenAI-compatible server is called. OpenAI, OpenRouter, vLLM, llama.cpp,
 * Ollama and LiteLLM differ only in the base URL, the key (or none) and extra headers: all three
 * are the provider's configuration.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */
import { trimBase } from '../upstream/request-fields';
import type { ProviderConfig } from '../upstream/provider-config';

/** The base URL includes the version (`…/v1`), as the vendor's official client takes it. */
export const chatCompletionsUrl = (baseUrl: string) => `${trimBase(baseUrl)}/chat/completions`;

/**
 * The configured extra headers, then the key as a Bearer token. A local server that needs no key
 * gets no `Authorization` at all (an empty Bearer is refused by some proxies); when a key is set it
 * wins over any `Authorization` the headers file carries, whatever its case.
 */
export function chatCompletionsHeaders(config: ProviderConfig): Record<string, string> {
  if (!config.apiKey) return { ...config.headers };
  const headers = Object.fromEntries(
    Object.entries(config.headers).filter(([name]) => name.toLowerCase() !== 'authorization'),
  );
  return { ...headers, Authorization: `Bearer ${config.apiKey}` };
}
