/**
 * Group commit: items added while the previous batch is being written wait and go together in
 * the next one, so a busy gateway pays one transaction (one fsync) per batch instead of one per
 * item, and batches to the same rows never run at once (they would only queue on the rows'
 * locks). Each item's promise settles once its batch is committed, or failed.
 */
type Queued<T, R> = { item: T; resolve: (result: R) => void; reject: (error: unknown) => void };

export class GroupCommit<T, R = void> {
  private queue: Queued<T, R>[] = [];
  private running: Promise<void> | null = null;
  private scheduled = false;

  /**
   * @param commit writes a batch in one transaction, all or none; returns each item's result, in
   *   the items' order (nothing, when items have no result).
   * @param oneByOne when true, a failed batch is retried item by item, so one bad item fails
   *   alone.
   */
  constructor(
    private readonly commit: (items: T[]) => Promise<R[] | void>,
    private readonly oneByOne = false,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** Writes everything queued now, after the batch in flight (shutdown calls it). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    await this.drain();
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    // Items added in this turn of the event loop join the first batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.drain();
    });
  }

  private drain(): Promise<void> {
    if (this.running) return this.running;
    if (this.queue.length === 0) return Promise.resolve();
    const running = this.run();
    this.running = running;
    return running;
  }

  private async run(): Promise<void> {
    // Yields first, so `running` is set before the `finally` below clears it.
    await Promise.resolve();
    try {
      while (this.queue.length > 0) await this.write(this.queue.splice(0));
    } finally {
      this.running = null;
    }
  }

  private async write(batch: Queued<T, R>[]): Promise<void> {
    try {
      const results = await this.commit(batch.map((queued) => queued.item));
      batch.forEach((queued, index) => queued.resolve(results?.[index] as R));
    } catch (error) {
      if (!this.oneByOne || batch.length === 1) {
        for (const queued of batch) queued.reject(error);
        return;
      }
      for (const queued of batch) {
        try {
          const results = await this.commit([queued.item]);
          queued.resolve(results?.[0] as R);
        } catch (single) {
          queued.reject(single);
        }
      }
    }
  }
}
