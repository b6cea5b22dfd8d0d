/**
 * Runs the batches in the store, in the background of this instance: claims lines (each for a
 * lease, renewed while it runs), runs them (line-runner.ts), keeps each result, and ends a batch
 * once none of its lines is left. Several instances on one store share the work; a line whose
 * instance died is claimed again once its lease has lapsed for a whole lease more, by which time
 * its in-flight row has been closed and the line's record (if any) is there to be replaced.
 *
 * Interactive traffic comes first: while any interactive request runs on this instance, a line
 * starts only when no other line runs; the full bound applies only when the instance is quiet.
 */
import type { GatewayParts } from '../routes/route-kit';
import type { BatchRow, LineCounts } from '../store/batches';
import { lineFormOf } from './batch-endpoints';
import { runLine } from './line-runner';

/** Lines one instance runs at once, over every batch and key. */
export const BATCH_CONCURRENCY = 8;
/** Lines of one key's batches one instance runs at once. */
export const BATCH_CONCURRENCY_PER_KEY = 4;
/** How often the store is looked at for batches to run (a new batch here wakes it at once). */
const POLL_MS = 500;

export type BatchEnded = (batch: BatchRow, counts: LineCounts) => Promise<void>;

export class BatchRunner {
  private readonly running = new Map<string, { keyId: string; batchId: string; index: number }>();
  private readonly abort = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private renewal: NodeJS.Timeout | null = null;
  private pass: Promise<void> | null = null;
  private again = false;
  private closed = false;
  /** One process alone on its SQLite file: running lines it finds were its previous run's. */
  private takeOverAll: boolean;

  constructor(
    private readonly parts: GatewayParts,
    private readonly onEnded: BatchEnded,
  ) {
    this.takeOverAll = !parts.store.shared;
  }

  start(): void {
    this.timer = setInterval(() => this.wake(), POLL_MS);
    this.timer.unref();
    this.renewal = setInterval(
      () => void this.renew(),
      Math.max(50, this.parts.config.leaseMs / 3),
    );
    this.renewal.unref();
    this.wake();
  }

  /** Looks for work now (a batch was created or a line ended). */
  wake(): void {
    if (this.closed) return;
    if (this.pass) {
      this.again = true;
      return;
    }
    this.pass = this.runPass()
      .catch((error: unknown) => {
        this.parts.logger.error({ err: error }, 'a batch pass failed; the next one retries');
      })
      .finally(() => {
        this.pass = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Lines running on this instance now. */
  get runningLines(): number {
    return this.running.size;
  }

  /** Stops claiming lines and waits for those running to end (their results kept). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.pass;
    while (this.running.size > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    if (this.renewal) clearInterval(this.renewal);
  }

  private capacity(keyId: string): number {
    const interactive = Math.max(0, this.parts.pipeline.admitted - this.running.size);
    // While interactive requests run, one line at a time: enough that a batch never stalls.
    const overall = (interactive > 0 ? 1 : BATCH_CONCURRENCY) - this.running.size;
    let ofKey = 0;
    for (const line of this.running.values()) if (line.keyId === keyId) ofKey += 1;
    return Math.min(overall, BATCH_CONCURRENCY_PER_KEY - ofKey);
  }

  private async runPass(): Promise<void> {
    const { store, config, instanceId } = this.parts;
    const cutoff = this.takeOverAll ? Number.MAX_SAFE_INTEGER : Date.now() - config.leaseMs;
    this.takeOverAll = false;
    for (const batch of await store.batches.runnable()) {
      if (this.closed) return;
      const capacity = batch.status === 'in_progress' ? this.capacity(batch.keyId) : 0;
      const lines =
        capacity > 0
          ? await store.batches.claimLines(
              batch.id,
              instanceId,
              Date.now() + config.leaseMs,
              cutoff,
              capacity,
            )
          : [];
      for (const line of lines) this.startLine(batch, line.index, line.request);
      if (lines.length === 0 && ![...this.running.values()].some((l) => l.batchId === batch.id)) {
        const ended = await store.batches.finish(batch.id, Math.floor(Date.now() / 1000));
        if (ended) await this.onEnded(ended, await store.batches.counts(batch.id));
      }
    }
  }

  private startLine(batch: BatchRow, index: number, request: unknown): void {
    const id = `${batch.id}:${index}`;
    this.running.set(id, { keyId: batch.keyId, batchId: batch.id, index });
    const lineForm = lineFormOf(batch.endpoint)!;
    const line = {
      batchId: batch.id,
      index,
      keyId: batch.keyId,
      endpoint: batch.endpoint,
      request,
    };
    void runLine(this.parts, lineForm, line, this.abort.signal)
      .then((outcome) =>
        this.parts.store.batches.finishLine(batch.id, index, this.parts.instanceId, outcome),
      )
      .catch((error: unknown) => {
        // The claim lapses and another pass (here or elsewhere) runs the line again.
        this.parts.logger.error(
          { err: error, batchId: batch.id, index },
          'keeping a batch line failed',
        );
      })
      .finally(() => {
        this.running.delete(id);
        this.wake();
      });
  }

  private async renew(): Promise<void> {
    if (this.running.size === 0) return;
    try {
      await this.parts.store.batches.renewLines(
        this.parts.instanceId,
        Date.now() + this.parts.config.leaseMs,
        [...this.running.values()],
      );
    } catch (error) {
      this.parts.logger.warn({ err: error }, 'renewing batch line leases failed; will retry');
    }
  }
}
