/**
 * Group commit of generation records (billing/group-commit.ts): each request's promise resolves
 * once its record is committed. Durability is not traded for speed: an answer's end is sent only
 * after its record is on disk, but a busy gateway pays for one commit per batch instead of one
 * per answer. One bad record fails alone.
 */
import type { GatewayStore, GenerationRow, RecordCorrection } from '../store/store';
import { GroupCommit } from './group-commit';

export class GenerationWriter {
  private readonly batches: GroupCommit<GenerationRow, RecordCorrection | null>;

  /**
   * @param busy whether requests other than a batch of this many are running: the store may then
   *   write from another thread (GatewayStore.insertGenerations).
   */
  constructor(store: GatewayStore, busy: (batch: number) => boolean = () => false) {
    this.batches = new GroupCommit(async (rows) => {
      const corrections = await store.insertGenerations(rows, { busy: busy(rows.length) });
      if (corrections.length === 0) return rows.map(() => null);
      const byId = new Map(corrections.map((correction) => [correction.id, correction]));
      return rows.map((row) => byId.get(row.id) ?? null);
    }, true);
  }

  /**
   * Resolves once the record is committed: with what it moved if it replaced the record written
   * when the request's lease ran out (GatewayStore.insertGenerations), or null.
   */
  write(row: GenerationRow): Promise<RecordCorrection | null> {
    return this.batches.add(row);
  }

  /** Writes what is queued now (shutdown calls it so nothing waits for a turn that never comes). */
  flush(): Promise<void> {
    return this.batches.flush();
  }
}
