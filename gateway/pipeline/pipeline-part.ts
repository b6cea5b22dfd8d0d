/**
 * The inference pipeline as a part, with what only it drives: the generation record writer, the
 * renewal of its running requests' in-flight rows, and the per-key slots. Closed right after the
 * batches: the last records are flushed and the rows' last checkpoints written before the stats,
 * settlement and budget close.
 */
import type { Logger } from 'pino';
import type { BudgetPeriods } from '../keys/calendar-clock';
import type { Budget } from '../billing/budget';
import { GenerationWriter } from '../billing/generation-writer';
import { renewalIntervalMs, type InflightRows } from '../billing/inflight-rows';
import type { Catalog } from '../catalog/catalog';
import type { RoutingNames } from '../catalog/routing-names';
import type { GatewayConfig } from '../config';
import type { KeyRegistry } from '../keys/key-registry';
import type { GatewayMetrics } from '../operability/gateway-metrics';
import type { ProviderAvailability } from '../operability/provider-availability';
import { providerSpeeds } from '../operability/provider-speeds';
import type { Tracing } from '../operability/tracing';
import type { Assembled } from '../shared/assembly';
import { nanosToUsd } from '../shared/money';
import type { GatewayStore } from '../store/store';
import { InferencePipeline, type ProviderEntry } from './inference-pipeline';
import { KeySlots } from './key-slots';

export function createPipeline(
  config: GatewayConfig,
  deps: {
    store: GatewayStore;
    catalog: Catalog;
    names: RoutingNames;
    registry: KeyRegistry;
    periods: BudgetPeriods;
    budget: Budget;
    rows: InflightRows;
    providers: Map<string, ProviderEntry>;
    metrics: GatewayMetrics;
    tracing: Tracing;
    availability: ProviderAvailability;
    logger: Logger;
  },
): Assembled<{ pipeline: InferencePipeline; slots: KeySlots }> {
  const { store, budget, rows, providers, metrics, availability } = deps;
  // Read as each batch is written: the batch's own requests are still running then, so more
  // running than the batch holds means others are waiting to be served.
  const writer = new GenerationWriter(store, (batch: number): boolean => pipeline.admitted > batch);
  const pipeline = new InferencePipeline({
    ...deps,
    tracer: deps.tracing.tracer,
    speeds: providerSpeeds(store.providerStats),
    writer,
    onAttempt: (attempt, model) => {
      metrics.countAttempt(attempt);
      availability.attempt(model, attempt);
    },
    onRecorded: (record, generationMs) => {
      availability.recorded(record, generationMs);
      if (record.overheadMs != null) metrics.observeOverhead(record.form, record.overheadMs);
      metrics.countSpend(record.model, nanosToUsd(record.costNanos));
    },
  });
  metrics.readFrom({
    reservationsHeld: () => pipeline.runningReservations().length,
    breakers: () =>
      [...providers.keys()].map((provider) => ({
        provider,
        open: pipeline.providerStatus(provider)?.status === 'cooling_down',
      })),
  });
  rows.start(renewalIntervalMs(config.leaseMs), (leaseExpiresAt) =>
    budget.renew(pipeline.runningReservations(), leaseExpiresAt),
  );
  return {
    part: { pipeline, slots: new KeySlots(config.maxConcurrentPerKey) },
    async close() {
      rows.stop();
      await writer.flush();
      await rows.flush();
    },
  };
}
