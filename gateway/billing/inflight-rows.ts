/**
 * The in-flight rows of this process's running requests (store.ts, `InflightRow`). A request's
 * row is written with the first checkpoint after its admission (within a second), carrying what
 * it has delivered so far; from then on, about once a second, every running request's delivered
 * usage is checkpointed and every lease of this instance renewed, in one pass. If the process
 * dies, its rows outlive their lease and another instance (or this one, restarted) closes them as
 * `ended_early` records charging what was checkpointed.
 *
 * Why not at admission: a row with nothing checkpointed is closed without a record, so a request
 * that ends before its first checkpoint is charged the same with or without one; writing and
 * removing a row for each of them cost a busy gateway a tenth of its throughput. A budget that
 * keeps its reservation in the row itself (store-budget.ts) writes it at admission, and `hold`s it.
 */
import type { Logger } from 'pino';
import type { GatewayStore, InflightCheckpoint, InflightRow } from '../store/store';
import { GroupCommit } from './group-commit';

export class InflightRows {
  private readonly dropping: GroupCommit<string>;
  /** Admitted requests whose rows the next checkpoint writes. */
  private readonly unwritten = new Map<string, InflightRow>();
  /** Running requests: how to read each one's delivered usage now. */
  private readonly running = new Map<string, () => InflightCheckpoint | null>();
  private readonly lastCheckpoint = new Map<string, string>();
  /** Rows in the store, opened by this process and not yet seen removed. */
  private readonly held = new Set<string>();
  /** The checkpoint being written, if one is: a record or a drop waits for it. */
  private writing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: GatewayStore,
    readonly instanceId: string,
    readonly leaseMs: number,
    private readonly logger: Logger,
  ) {
    this.dropping = new GroupCommit((ids) => store.dropInflight(ids));
  }

  /** The lease a row opened (or renewed) now gets: Unix milliseconds. */
  leaseFromNow(): number {
    return Date.now() + this.leaseMs;
  }

  /** A request was admitted: its row is written with the next checkpoint, if it still runs. */
  open(row: InflightRow): void {
    this.unwritten.set(row.id, row);
  }

  /** A row the store wrote itself (`reserve`): its lease is renewed like the others. */
  hold(id: string): void {
    this.held.add(id);
  }

  /** From the first delivered event on, the request's usage is checkpointed through `read`. */
  track(id: string, read: () => InflightCheckpoint | null): void {
    this.running.set(id, read);
  }

  /**
   * The request's record is about to be written, and its transaction removes the row: stop
   * checkpointing it, and wait for a checkpoint being written now (it may insert the row), so the
   * record's removal always comes after. A row never written never will be.
   */
  async closing(id: string): Promise<void> {
    this.untrack(id);
    if (this.writing) await this.writing.catch(() => undefined);
  }

  /** The request ended without a record: its row, if written, is removed. */
  async drop(id: string): Promise<void> {
    const written = !this.unwritten.has(id);
    this.untrack(id);
    if (!written) return;
    if (this.writing) await this.writing.catch(() => undefined);
    await this.dropping.add(id);
  }

  /** The request's record is written (or it was dropped): nothing more to checkpoint. */
  untrack(id: string): void {
    this.unwritten.delete(id);
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
    // An idle gateway writes nothing; one checkpoint at a time.
    if (this.held.size === 0 && this.running.size === 0 && this.unwritten.size === 0) return;
    while (this.writing) await this.writing.catch(() => undefined);
    // From here to the store's call, nothing awaits: a request closing meanwhile either is
    // taken out of this pass or waits for its write.
    const lease = this.leaseFromNow();
    const read = (id: string) => this.running.get(id)?.() ?? null;
    const opened: InflightRow[] = [];
    for (const [id, row] of this.unwritten) {
      const now = read(id);
      opened.push(
        now ? { ...row, ...now, leaseExpiresAt: lease } : { ...row, leaseExpiresAt: lease },
      );
      if (now) this.lastCheckpoint.set(id, signatureOf(now));
      this.held.add(id);
    }
    this.unwritten.clear();
    const checkpoints: InflightCheckpoint[] = [];
    const openedIds = new Set(opened.map((row) => row.id));
    for (const id of this.running.keys()) {
      if (openedIds.has(id)) continue;
      const checkpoint = read(id);
      if (checkpoint === null) continue;
      // Only what changed since the last checkpoint is written again.
      const signature = signatureOf(checkpoint);
      if (this.lastCheckpoint.get(id) === signature) continue;
      this.lastCheckpoint.set(id, signature);
      checkpoints.push(checkpoint);
    }
    const writing = (async () => {
      if (opened.length > 0) await this.store.openInflight(opened);
      await this.store.checkpointInflight(this.instanceId, lease, checkpoints);
    })();
    this.writing = writing;
    try {
      await writing;
    } finally {
      if (this.writing === writing) this.writing = null;
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Writes what is queued now (shutdown calls it). */
  async flush(): Promise<void> {
    if (this.writing) await this.writing.catch(() => undefined);
    await this.dropping.flush();
  }
}

const signatureOf = (checkpoint: InflightCheckpoint) =>
  `${checkpoint.promptTokens}:${checkpoint.completionTokens}:${checkpoint.provider}`;
