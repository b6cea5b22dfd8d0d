import { GroupCommit } from './group-commit';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('writes what arrives in one turn as one batch, and what arrives during a write as the next', async () => {
    const batches: number[][] = [];
    let release: () => void = () => {};
    const group = new GroupCommit<number>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const first = [group.add(1), group.add(2)];
    await tick();
    const second = [group.add(3), group.add(4), group.add(5)];
    await tick();
    // The second batch waits for the first: no two writes at once.
    expect(batches).toEqual([[1, 2]]);
    release();
    await Promise.all([...first, ...second]);
    expect(batches).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
  });

  it('settles flush at once when nothing is queued, and writes what is queued', async () => {
    const written: number[] = [];
    const group = new GroupCommit<number>(async (items) => void written.push(...items));
    await group.flush();
    const added = group.add(7);
    await group.flush();
    expect(written).toEqual([7]);
    await added;
    // And again after an empty flush: nothing is stuck.
    await group.flush();
    await group.add(8);
    expect(written).toEqual([7, 8]);
  });

  it('retries a failed batch item by item when asked, so one bad item fails alone', async () => {
    const group = new GroupCommit<number>(async (items) => {
      if (items.includes(13)) throw new Error(`bad ${items.join(',')}`);
    }, true);
    const results = await Promise.allSettled([group.add(1), group.add(13), group.add(2)]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('fails the whole batch otherwise', async () => {
    const group = new GroupCommit<number>(async () => {
      throw new Error('disk full');
    });
    const results = await Promise.allSettled([group.add(1), group.add(2)]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
  });
});
