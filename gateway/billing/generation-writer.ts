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

  constructor(store: GatewayStore) {
    this.batches = new GroupCommit((rows) => store.insertGenerations(rows), true);
  }

  write(row: GenerationRow): Promise<void> {
    return this.batches.add(row);
  }

  /** Writes what is queued now (shutdown calls it so nothing waits for a turn that never comes). */
  flush(): Promise<void> {
    return this.batches.flush();
  }
}
