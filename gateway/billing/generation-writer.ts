/**
 * Group commit of generation records (billing/group-commit.ts): each request's promise resolves
 * once its record is committed. Durability is not traded for speed: an answer's end is sent only
 * after its record is on disk, but a busy gateway pays for one commit per batch instead of one
 * per answer. One bad record fails alone.
 */
import type { GatewayStore, GenerationRow } from '../store/store';
import { GroupCommit } from './group-commit';

export class GenerationWriter {
  private readonly batches: GroupCommit<GenerationRow>;

  /**
   * @param busy whether requests other than a batch of this many are running: the store may then
   *   write from another thread (GatewayStore.insertGenerations).
   */
  constructor(store: GatewayStore, busy: (batch: number) => boolean = () => false) {
    this.batches = new GroupCommit(
      (rows) => store.insertGenerations(rows, { busy: busy(rows.length) }),
      true,
    );
  }

  write(row: GenerationRow): Promise<void> {
    return this.batches.add(row);
  }

  /** Writes what is queued now (shutdown calls it so nothing waits for a turn that never comes). */
  flush(): Promise<void> {
    return this.batches.flush();
  }
}
