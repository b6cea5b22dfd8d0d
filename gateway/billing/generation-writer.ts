/**
 * Group commit of generation records: the records of requests that end in the same turn of the
 * event loop are written in one SQLite transaction, and each request's promise resolves once its
 * record is committed. Durability is not traded for speed: an answer's end is sent only after its
 * record is on disk, but a busy gateway pays for one commit per batch instead of one per answer.
 */
import type { GatewayStore, GenerationRow } from '../store/store';

type Pending = { row: GenerationRow; resolve: () => void; reject: (error: unknown) => void };

export class GenerationWriter {
  private queue: Pending[] = [];
  private scheduled = false;

  constructor(private readonly store: GatewayStore) {}

  write(row: GenerationRow): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ row, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Writes what is queued now (shutdown calls it so nothing waits for a turn that never comes). */
  flush(): void {
    this.scheduled = false;
    const batch = this.queue.splice(0);
    if (batch.length === 0) return;
    try {
      this.store.insertGenerations(batch.map((pending) => pending.row));
      for (const pending of batch) pending.resolve();
    } catch {
      // One bad row must not fail the others: write them one by one, each failing on its own.
      for (const pending of batch) {
        try {
          this.store.insertGenerations([pending.row]);
          pending.resolve();
        } catch (error) {
          pending.reject(error);
        }
      }
    }
  }
}
