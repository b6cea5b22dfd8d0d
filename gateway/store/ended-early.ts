/**
 * Closing an in-flight row whose request will never finish (its instance died, or restarted):
 * the same on both engines, so a crash is charged the same wherever the gateway keeps its data.
 */
import { noUsage } from '../../contract/generation-record';
import type { GenerationRow, InflightRow } from './store';

/** Only a row that delivered something is charged; one that had not started is just dropped. */
export const hasCheckpointedUsage = (row: InflightRow): boolean =>
  row.promptTokens > 0 || row.completionTokens > 0;

/**
 * The `ended_early` record of an in-flight row, charging its checkpointed usage. The tokens were
 * counted by the gateway as it streamed (the provider's own usage never came), hence estimated;
 * the latency is an upper bound: until the lease ran out, or until now if that is earlier.
 */
export function endedEarlyRecord(row: InflightRow, nowMs: number): GenerationRow {
  return {
    id: row.id,
    keyId: row.keyId,
    fundingKeyId: row.fundingKeyId,
    model: row.model,
    provider: row.provider,
    form: row.form,
    streamed: row.streamed,
    promptTokens: row.promptTokens,
    completionTokens: row.completionTokens,
    costNanos: row.costNanos,
    finishReason: null,
    outcome: 'ended_early',
    settled: false,
    createdAt: row.createdAt,
    settledAt: null,
    latencyMs: Math.max(0, Math.min(nowMs, row.leaseExpiresAt) - row.createdAt * 1000),
    upstreamModel: row.upstreamModel,
    attempts: [],
    usageEstimated: true,
    chargeCapped: false,
    ...noUsage,
    translation: null,
    requestedModel: null,
    // Closed by the lease's expiry: the request's own time was never measured.
    overheadMs: null,
    // The in-flight row does not keep it.
    sessionId: null,
    // Nor the batch: a line run again replaces this record with its own, which names it.
    batchId: null,
  };
}
