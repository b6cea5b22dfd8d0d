/** Group commit: one transaction per turn of the event loop, and one bad row fails only itself. */
import type { GatewayStore, GenerationRow } from '../store/store';
import { GenerationWriter } from './generation-writer';

const row = (id: string) => ({ id }) as GenerationRow;

function recordingStore(failOn: string | null = null) {
  const batches: string[][] = [];
  const store = {
    async insertGenerations(rows: GenerationRow[]) {
      // Committed a moment later, as a database answers.
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (rows.some((candidate) => candidate.id === failOn))
        throw new Error(`cannot write ${failOn}`);
      batches.push(rows.map((candidate) => candidate.id));
      // A record named `late…` replaced its request's closure (GatewayStore.insertGenerations).
      return rows
        .filter((candidate) => candidate.id.startsWith('late'))
        .map((candidate) => ({ id: candidate.id, pendingNanos: 7, chargedNanos: 5 }));
    },
  } as unknown as GatewayStore;
  return { store, batches };
}

describe('the generation writer', () => {
  it('writes the records of one turn in one transaction, and resolves each after the commit', async () => {
    const { store, batches } = recordingStore();
    const writer = new GenerationWriter(store);
    const written = ['a', 'b', 'c'].map((id) => writer.write(row(id)));
    // Nothing is committed (or resolved) within the turn that queued the records.
    expect(batches).toEqual([]);
    await Promise.all(written);
    expect(batches).toEqual([['a', 'b', 'c']]);
    await writer.write(row('d'));
    expect(batches).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('resolves each record with what it corrected, or null', async () => {
    const { store } = recordingStore();
    const writer = new GenerationWriter(store);
    const written = await Promise.all(['a', 'late_b', 'c'].map((id) => writer.write(row(id))));
    expect(written).toEqual([null, { id: 'late_b', pendingNanos: 7, chargedNanos: 5 }, null]);
  });

  it('fails only the record that cannot be written', async () => {
    const { store, batches } = recordingStore('b');
    const writer = new GenerationWriter(store);
    const results = await Promise.allSettled(['a', 'b', 'c'].map((id) => writer.write(row(id))));
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(batches).toEqual([['a'], ['c']]);
  });

  it('writes what is queued when flushed at shutdown', async () => {
    const { store, batches } = recordingStore();
    const writer = new GenerationWriter(store);
    const late = writer.write(row('late'));
    await writer.flush();
    expect(batches).toEqual([['late']]);
    await late;
  });
});
