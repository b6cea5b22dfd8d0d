/**
 * The in-flight rows of this process's running requests (store.ts, `InflightRow`): opened at
 * admission and dropped for requests that end without a record, each in group commits like the
 * generation records; and, about once a second, every running request's delivered usage
 * checkpointed and every lease of this instance renewed, in one statement. If the process dies,
 * its rows outlive their lease and another instance (or this one, restarted) closes them as
 * `ended_early` records charging what was checkpointed.
 */
import type { Logger } from 'pino';
import type { GatewayStore, InflightCheckpoint, InflightRow } from '../store/store';
import { GroupCommit } from './group-commit';

export class InflightRows {
  private readonly opening: GroupCommit<InflightRow>;
  private readonly dropping: GroupCommit<string>;
  /** Running requests: how to read each one's delivered usage now. */
  private readonly running = new Map<string, () => InflightCheckpoint | null>();
  private readonly lastCheckpoint = new Map<string, string>();
  /** Rows this process has opened and not yet seen removed: nothing to renew when empty. */
  private readonly held = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: GatewayStore,
    readonly instanceId: string,
    readonly leaseMs: number,
    private readonly logger: Logger,
  ) {
    this.opening = new GroupCommit((rows) => store.openInflight(rows));
    // Drops wait for the opens queued before them, so a row is never written after its drop.
    this.dropping = new GroupCommit(async (ids) => {
      await this.opening.flush();
      await store.dropInflight(ids);
    });
  }

  /** The lease a row opened (or renewed) now gets: Unix milliseconds. */
  leaseFromNow(): number {
    return Date.now() + this.leaseMs;
  }

  open(row: InflightRow): Promise<void> {
    this.held.add(row.id);
    return this.opening.add(row);
  }

  /** A row the store wrote itself (`reserve`): its lease is renewed like the others. */
  hold(id: string): void {
    this.held.add(id);
  }

  drop(id: string): Promise<void> {
    this.held.delete(id);
    this.running.delete(id);
    this.lastCheckpoint.delete(id);
    return this.dropping.add(id);
  }

  /** From the first delivered event on, the request's usage is checkpointed through `read`. */
  track(id: string, read: () => InflightCheckpoint | null): void {
    this.running.set(id, read);
  }

  /** The request's record is written: stop checkpointing it (the record removed its row). */
  untrack(id: string): void {
    this.held.delete(id);
    this.running.delete(id);
    this.lastCheckpoint.delete(id);
  }

  /** Starts the once-a-second checkpoint and lease renewal. */
  start(intervalMs = 1_000, onRenew?: (leaseExpiresAt: number) => Promise<void>): void {
    this.timer = setInterval(() => {
      void this.checkpointNow()
        .then(() => onRenew?.(this.leaseFromNow()))
        .catch((error: unknown) => {
          // The next tick tries again; the lease is long enough to survive a few misses.
          this.logger.warn({ err: error }, 'in-flight checkpoint failed; will retry');
        });
    }, intervalMs);
    this.timer.unref();
  }

  async checkpointNow(): Promise<void> {
    // An idle gateway writes nothing.
    if (this.held.size === 0 && this.running.size === 0) return;
    const checkpoints: InflightCheckpoint[] = [];
    for (const [id, read] of this.running) {
      const checkpoint = read();
      if (checkpoint === null) continue;
      // Only what changed since the last checkpoint is written again.
      const signature = `${checkpoint.promptTokens}:${checkpoint.completionTokens}:${checkpoint.provider}`;
      if (this.lastCheckpoint.get(id) === signature) continue;
      this.lastCheckpoint.set(id, signature);
      checkpoints.push(checkpoint);
    }
    await this.store.checkpointInflight(this.instanceId, this.leaseFromNow(), checkpoints);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Writes what is queued now (shutdown calls it). */
  async flush(): Promise<void> {
    await this.opening.flush();
    await this.dropping.flush();
  }
}
