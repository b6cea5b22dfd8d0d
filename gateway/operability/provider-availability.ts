/**
 * Collects each provider's availability from real traffic, per minute and model, in memory, and
 * adds it into the store every few seconds (and on close): never a write per request. Rows from
 * several instances add up in the store (store/provider-stats.ts). Old rows are pruned hourly.
 */
import type { Logger } from 'pino';
import {
  bucketOf,
  emptyStats,
  type FailureKind,
  type ProviderStatsRow,
  type ProviderStatsStore,
} from '../store/provider-stats';
import type { GenerationAttempt, GenerationRow } from '../store/store';

const PRUNE_INTERVAL_MS = 3_600_000;

/**
 * What an attempt's recorded status counts as: a success (its answer began), a failure of the
 * provider, or nothing: a provider skipped while cooling down was not asked, and the caller's own
 * mistakes (400, 413, 422) say nothing of the provider's health.
 */
export function attemptCountsAs(status: number | string): 'success' | FailureKind | null {
  if (typeof status === 'number') {
    if (status >= 200 && status < 300) return 'success';
    if (status === 400 || status === 413 || status === 422) return null;
    if (status === 408) return 'timeout';
    if (status === 429) return 'rate_limited';
    return status >= 500 ? 'server_error' : 'other';
  }
  if (status === 'cooling_down') return null;
  if (status === 'connect') return 'connection';
  return status.endsWith('_timeout') ? 'timeout' : 'other';
}

export const minuteOf = (milliseconds: number) => Math.floor(milliseconds / 60_000);

export class ProviderAvailability {
  private pending = new Map<string, ProviderStatsRow>();
  private flushing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private lastPrunedAt = 0;

  constructor(
    private readonly store: ProviderStatsStore,
    private readonly options: {
      retentionDays: number;
      logger: Logger;
      now?: () => number;
    },
  ) {}

  /** A provider attempt's outcome (routing sees every one). */
  attempt(model: string, attempt: GenerationAttempt): void {
    const counted = attemptCountsAs(attempt.status);
    if (counted === null) return;
    const row = this.row(model, attempt.provider);
    row.requests += 1;
    if (counted === 'success') row.successes += 1;
    else row.failures[counted] += 1;
  }

  /**
   * A written record of a completed answer: its answering provider's latency (from that attempt's
   * start to the end, so time lost to earlier providers is not charged to it), its time to the
   * first event, and its output rate after that. `generationMs`: from the answer's beginning to
   * its end; null where unknown (then the latency is the request's, arrival to end).
   */
  recorded(record: GenerationRow, generationMs: number | null): void {
    if (record.outcome !== 'completed') return;
    const answering = record.attempts.at(-1);
    const row = this.row(record.model, record.provider);
    if (
      answering === undefined ||
      answering.provider !== record.provider ||
      generationMs === null
    ) {
      row.latency[bucketOf(record.latencyMs)]! += 1;
      return;
    }
    row.latency[bucketOf(answering.latencyMs + generationMs)]! += 1;
    row.ttft[bucketOf(answering.latencyMs)]! += 1;
    if (record.completionTokens > 0 && generationMs >= 1) {
      row.outputTokens += record.completionTokens;
      row.generationMs += generationMs;
    }
  }

  /** Flushes every `intervalMs`, off the request path. */
  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  /** Adds what was collected into the store; kept for the next flush if the store fails. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    this.flushing = this.flushOnce().finally(() => (this.flushing = null));
    await this.flushing;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  private async flushOnce(): Promise<void> {
    const now = (this.options.now ?? Date.now)();
    const rows = [...this.pending.values()];
    this.pending = new Map();
    try {
      if (rows.length > 0) await this.store.add(rows);
      if (now - this.lastPrunedAt >= PRUNE_INTERVAL_MS) {
        this.lastPrunedAt = now;
        await this.store.prune(minuteOf(now) - this.options.retentionDays * 1_440);
      }
    } catch (error) {
      this.options.logger.warn({ err: error }, 'provider stats not written; will retry');
      for (const row of rows) this.merge(row);
    }
  }

  private merge(from: ProviderStatsRow): void {
    const into = this.row(from.model, from.provider, from.minute);
    into.requests += from.requests;
    into.successes += from.successes;
    for (const kind of Object.keys(from.failures) as FailureKind[])
      into.failures[kind] += from.failures[kind];
    from.latency.forEach((count, index) => (into.latency[index]! += count));
    from.ttft.forEach((count, index) => (into.ttft[index]! += count));
    into.outputTokens += from.outputTokens;
    into.generationMs += from.generationMs;
  }

  private row(
    model: string,
    provider: string,
    minute = minuteOf((this.options.now ?? Date.now)()),
  ): ProviderStatsRow {
    const key = `${minute}\u0000${model}\u0000${provider}`;
    let row = this.pending.get(key);
    if (!row) {
      row = emptyStats(minute, model, provider);
      this.pending.set(key, row);
    }
    return row;
  }
}
