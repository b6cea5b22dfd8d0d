/**
 * The in-flight rows of this process's running requests (store.ts, `InflightRow`): written with
 * the first checkpoint after admission, checkpointed and lease-renewed about once a second, and
 * fenced when instances share the store (`fenceMarginMs`, `leaseLost`).
 * Why: docs/decisions/0009-leases-checkpoints-and-the-fence.md
 */
import type { Logger } from 'pino';
import type { GatewayStore, InflightCheckpoint, InflightRow } from '../store/store';
import { GroupCommit } from './group-commit';

/**
 * How often leases are renewed: once a second, or more often when the lease is short, so that
 * several renewals fit in a lease before its fence.
 */
export const renewalIntervalMs = (leaseMs: number): number =>
  Math.max(50, Math.min(1_000, Math.floor(leaseMs / 6)));

/**
 * How long before its lease ends a request this process could not renew is stopped: enough for
 * the clocks of two instances to differ (NTP keeps them far closer), and no more, since every
 * renewal has the lease less the margin to get through.
 */
export const fenceMarginMs = (leaseMs: number): number => Math.min(2_000, Math.floor(leaseMs / 5));

export type InflightRowsOptions = {
  /**
   * Stop a request this long before the end of the last lease renewed for it (`fenceMarginMs`);
   * null (the embedded gateway) never stops one.
   */
  fenceMarginMs?: number | null;
  /** Unix milliseconds now (tests move it). */
  now?: () => number;
};

/**
 * Renews the leases the budget holds apart from the rows (Redis), to the given end; resolves with
 * the requests whose reservation was already gone, which are lost at once.
 */
export type RenewBudget = (leaseExpiresAt: number) => Promise<ReadonlySet<string>>;

export class InflightRows {
  private readonly dropping: GroupCommit<string>;
  /** Admitted requests whose rows the next checkpoint writes. */
  private readonly unwritten = new Map<string, InflightRow>();
  /** Running requests: how to read each one's delivered usage now. */
  private readonly running = new Map<string, () => InflightCheckpoint | null>();
  private readonly lastCheckpoint = new Map<string, string>();
  /** Rows in the store, opened by this process and not yet seen removed. */
  private readonly held = new Set<string>();
  /** Of those, the rows known written: their writes came back. */
  private readonly written = new Set<string>();
  /** The rows the checkpoint being written now inserts, and whether that insert came back. */
  private opening: { ids: Set<string>; written: boolean } | null = null;
  /** With a fence: the end of the last lease known written for each running request (Unix ms). */
  private readonly leaseEnds = new Map<string, number>();
  /** With a fence: what to do when a request's lease is lost (stop it), once. */
  private readonly onLost = new Map<string, () => void>();
  /** The checkpoint being written, if one is: a record or a drop waits for it. */
  private writing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private fenceTimer: NodeJS.Timeout | null = null;
  private readonly fenceMargin: number | null;
  private readonly now: () => number;

  constructor(
    private readonly store: GatewayStore,
    readonly instanceId: string,
    readonly leaseMs: number,
    private readonly logger: Logger,
    options: InflightRowsOptions = {},
  ) {
    this.dropping = new GroupCommit((ids) => store.dropInflight(ids));
    this.fenceMargin = options.fenceMarginMs ?? null;
    this.now = options.now ?? Date.now;
  }

  /** The lease a row opened (or renewed) now gets: Unix milliseconds. */
  leaseFromNow(): number {
    return this.now() + this.leaseMs;
  }

  /** A request was admitted: its row is written with the next checkpoint, if it still runs. */
  open(row: InflightRow): void {
    this.unwritten.set(row.id, row);
    this.watchLease(row.id, row.leaseExpiresAt);
  }

  /** A row the store wrote itself (`reserve`), with this lease: renewed like the others. */
  hold(id: string, leaseExpiresAt: number): void {
    this.held.add(id);
    this.written.add(id);
    this.watchLease(id, leaseExpiresAt);
  }

  /** From the first delivered event on, the request's usage is checkpointed through `read`. */
  track(id: string, read: () => InflightCheckpoint | null): void {
    this.running.set(id, read);
  }

  /**
   * Whether this process can no longer vouch for the request's lease: it has not renewed it for
   * so long that another instance may soon close its row and give its reservation away. The
   * request must then deliver nothing more. Always false without a fence.
   */
  leaseLost(id: string): boolean {
    if (this.fenceMargin === null) return false;
    const end = this.leaseEnds.get(id);
    return end !== undefined && this.now() >= end - this.fenceMargin;
  }

  /** Calls `stop` (once) when the request's lease is lost, while it runs. */
  onLeaseLost(id: string, stop: () => void): void {
    if (this.fenceMargin === null || !this.leaseEnds.has(id)) return;
    this.onLost.set(id, stop);
  }

  /**
   * The request's record is about to be written, and its transaction removes the row: stop
   * checkpointing it, and wait for a checkpoint being written now (it may insert the row), so the
   * record's removal always comes after. A row never written never will be. Resolves with
   * whether the row was written: the record must then find the row, or the closure a reclaim
   * wrote for it, to charge anything (`GenerationRow.inflightRowWritten`).
   */
  async closing(id: string): Promise<boolean> {
    const opening = this.opening?.ids.has(id) ? this.opening : null;
    const written = this.written.has(id);
    this.untrack(id);
    if (this.writing) await this.writing.catch(() => undefined);
    return opening ? opening.written : written;
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
    this.written.delete(id);
    this.running.delete(id);
    this.lastCheckpoint.delete(id);
    this.leaseEnds.delete(id);
    this.onLost.delete(id);
  }

  /**
   * Starts the checkpoint and lease renewal every `intervalMs`, and, with a fence, the watch that
   * stops requests whose lease is lost.
   */
  start(intervalMs = 1_000, renewBudget?: RenewBudget): void {
    this.timer = setInterval(() => {
      this.renewNow(renewBudget).catch((error: unknown) => {
        // The next tick tries again; the lease is long enough to survive a few misses.
        this.logger.warn({ err: error }, 'in-flight checkpoint failed; will retry');
      });
    }, intervalMs);
    this.timer.unref();
    if (this.fenceMargin !== null) {
      const every = Math.max(10, Math.min(250, Math.floor(this.fenceMargin / 4)));
      this.fenceTimer = setInterval(() => this.stopLost(), every);
      this.fenceTimer.unref();
    }
  }

  /**
   * One pass: checkpoints and renews the rows, then the budget's own leases, all to one lease
   * end; the requests both renewed are vouched for until then.
   */
  async renewNow(renewBudget?: RenewBudget): Promise<void> {
    const lease = this.leaseFromNow();
    const renewed = await this.checkpointNow(lease);
    const lost = (await renewBudget?.(lease)) ?? new Set<string>();
    if (this.fenceMargin === null) return;
    const now = this.now();
    for (const id of lost) if (this.leaseEnds.has(id)) this.leaseEnds.set(id, -Infinity);
    for (const id of renewed) {
      const end = this.leaseEnds.get(id);
      if (end === undefined || lost.has(id)) continue;
      // A renewal that comes back once the request was lost vouches for nothing: another
      // instance may have closed the row before the renewal reached it.
      if (now < end - this.fenceMargin) this.leaseEnds.set(id, Math.max(end, lease));
    }
  }

  /**
   * Checkpoints running requests and renews the leases of the rows this process holds, to
   * `lease`. Resolves with the requests whose rows it renewed (or wrote).
   */
  async checkpointNow(lease = this.leaseFromNow()): Promise<string[]> {
    // An idle gateway writes nothing; one checkpoint at a time.
    if (this.held.size === 0 && this.running.size === 0 && this.unwritten.size === 0) return [];
    while (this.writing) await this.writing.catch(() => undefined);
    // From here to the store's call, nothing awaits: a request closing meanwhile either is
    // taken out of this pass or waits for its write.
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
    // Only the rows of requests still running: a row this process gave up on (one it could not
    // drop) lapses, and another instance closes it.
    const renew = [...this.held];
    const opening = { ids: new Set(opened.map((row) => row.id)), written: false };
    this.opening = opening;
    const writing = (async () => {
      if (opened.length > 0) await this.store.openInflight(opened);
      opening.written = true;
      for (const id of opening.ids) if (this.held.has(id)) this.written.add(id);
      await this.store.checkpointInflight(this.instanceId, lease, checkpoints, renew);
    })();
    this.writing = writing;
    try {
      await writing;
    } finally {
      if (this.opening === opening) this.opening = null;
      if (this.writing === writing) this.writing = null;
    }
    return renew;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.fenceTimer) clearInterval(this.fenceTimer);
    this.timer = null;
    this.fenceTimer = null;
  }

  /** Writes what is queued now (shutdown calls it). */
  async flush(): Promise<void> {
    if (this.writing) await this.writing.catch(() => undefined);
    await this.dropping.flush();
  }

  /** Stops every request whose lease is lost (each once). */
  stopLost(): void {
    for (const [id, stop] of this.onLost) {
      if (!this.leaseLost(id)) continue;
      this.onLost.delete(id);
      stop();
    }
  }

  private watchLease(id: string, leaseExpiresAt: number): void {
    if (this.fenceMargin === null) return;
    this.leaseEnds.set(id, leaseExpiresAt);
  }
}

const signatureOf = (checkpoint: InflightCheckpoint) =>
  `${checkpoint.promptTokens}:${checkpoint.completionTokens}:${checkpoint.provider}`;
