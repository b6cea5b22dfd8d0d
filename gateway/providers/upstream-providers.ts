/** One provider object per upstream entry of the providers file, by its kind's adapter. */
import { anthropicAdapter } from './anthropic';
import { geminiAdapter } from './gemini';
import { openAiCompatibleAdapter } from './openai-compatible';
import type { ProvidersFile } from './providers-file';
import type { ProviderAdapter } from './upstream/adapter';
import type { ImageFetchPolicy } from './upstream/inline-images';
import type { ProviderConfig, UpstreamKind } from './upstream/provider-config';
import { createUpstreamProvider, type UpstreamProvider } from './upstream/upstream-provider';

const adapters: Record<UpstreamKind, ProviderAdapter<unknown>> = {
  'openai-compatible': openAiCompatibleAdapter as ProviderAdapter<unknown>,
  anthropic: anthropicAdapter as ProviderAdapter<unknown>,
  gemini: geminiAdapter as ProviderAdapter<unknown>,
};

export function createUpstreamProviders(
  file: ProvidersFile | null,
  imagePolicy: ImageFetchPolicy,
): Array<{ provider: UpstreamProvider; config: ProviderConfig }> {
  return (file?.upstream ?? []).map((config) => ({
    provider: createUpstreamProvider(config, adapters[config.kind], imagePolicy),
    config,
  }));
}
