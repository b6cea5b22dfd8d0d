/**
 * The providers as a part: the simulated ones (or those a test gives) and the providers file's
 * upstreams, each with its retry policy and its own circuit breaker.
 */
import type { GatewayConfig } from '../config';
import type { Provider } from '../providers/provider';
import { createSimulatedProvider } from '../providers/simulated/simulated-provider';
import { defaultBreaker, defaultRetry } from '../providers/upstream/provider-config';
import { createUpstreamProviders } from '../providers/upstream-providers';
import type { Assembled } from '../shared/assembly';
import { CircuitBreaker } from './circuit-breaker';
import type { ProviderEntry } from './inference-pipeline';

export function createProviders(
  config: GatewayConfig,
  deps: { providers?: Provider[] },
): Assembled<{ providers: Map<string, ProviderEntry> }> {
  const { simulatedTokensPerSecond: tokensPerSecond } = config;
  const upstream = createUpstreamProviders(config.providers, {
    allowPrivateHosts: config.allowPrivateImageUrls,
  });
  const providers = new Map<string, ProviderEntry>();
  for (const provider of deps.providers ?? [
    createSimulatedProvider({ tokensPerSecond }),
    ...(config.providers?.simulated ?? []).map(({ id }) =>
      createSimulatedProvider({ id, tokensPerSecond }),
    ),
  ])
    providers.set(provider.id, {
      provider,
      retry: defaultRetry,
      breaker: new CircuitBreaker(defaultBreaker),
    });
  for (const { provider, config: providerConfig } of upstream)
    providers.set(provider.id, {
      provider,
      retry: providerConfig.retry,
      breaker: new CircuitBreaker(providerConfig.breaker),
    });
  return {
    part: { providers },
    close() {
      for (const { provider } of upstream) void provider.close();
    },
  };
}
