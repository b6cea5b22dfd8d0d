/**
 * Metrics and traces as a part. Made early: tracing counts its dropped spans in the metrics, and
 * the pipeline reports into both; closed late, so the spans of the last requests are sent.
 */
import type { GatewayConfig } from '../config';
import type { Assembled } from '../shared/assembly';
import { GatewayMetrics } from './gateway-metrics';
import { createTracing, type Tracing } from './tracing';

export function createTelemetry(
  config: GatewayConfig,
  deps: { instanceId: string },
): Assembled<{ metrics: GatewayMetrics; tracing: Tracing }> {
  // The pipeline's figures are read from it once it exists (GatewayMetrics.readFrom).
  const metrics = new GatewayMetrics({});
  const tracing = createTracing(config.tracing, deps.instanceId, (reason, count) =>
    metrics.countDroppedSpans(reason, count),
  );
  return {
    part: { metrics, tracing },
    // Bounded by OTEL_BSP_EXPORT_TIMEOUT, even with a collector that hangs.
    close: () => tracing.shutdown(),
  };
}
