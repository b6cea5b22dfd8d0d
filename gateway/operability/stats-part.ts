/**
 * Provider stats as a part: collected in memory from this instance's traffic and added into the
 * store every few seconds. Closed after the pipeline, whose last records it still counts.
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config';
import type { Assembled } from '../shared/assembly';
import type { GatewayStore } from '../store/store';
import { ProviderAvailability } from './provider-availability';

/** How often provider stats collected in memory are added into the store. */
const AVAILABILITY_FLUSH_MS = 5_000;

export function createStats(
  config: GatewayConfig,
  deps: { store: GatewayStore; logger: Logger },
): Assembled<{ availability: ProviderAvailability }> {
  const availability = new ProviderAvailability(deps.store.providerStats, {
    retentionDays: config.statsRetentionDays,
    logger: deps.logger,
  });
  availability.start(AVAILABILITY_FLUSH_MS);
  return { part: { availability }, close: () => availability.close() };
}
