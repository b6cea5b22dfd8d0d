/**
 * The preset store's contract (presets.ts), run against both engines by their store integration
 * tests: what one store writes, another over the same data reads, and the version tells it so.
 */
import { describe, expect, it } from 'vitest';
import { storesClosedAfterEach, type StoreFactory } from './store-contract';
import type { StoredPresetRow } from './presets';

const presetRow = (overrides: Partial<StoredPresetRow> = {}): StoredPresetRow => ({
  id: '@preset/quick',
  definition: {
    id: '@preset/quick',
    model: 'team/coder',
    provider: { sort: 'price', max_price: { prompt: 5 } },
    system: 'Be brief. Ünïcode kept.',
    parameters: { max_tokens: 256, stop: ['END'] },
  },
  updatedAt: 1_700_000_000,
  ...overrides,
});

export function describePresetStoreContract(factory: StoreFactory): void {
  const { open, openAnother } = storesClosedAfterEach(factory);

  describe('presets', () => {
    it('keeps a preset as given, replaces it, and deletes it, seen by another store', async () => {
      const store = await open();
      const other = await openAnother();
      expect(await other.presets.list()).toEqual([]);

      expect(await store.presets.put(presetRow())).toBe(true);
      expect(await store.presets.put(presetRow({ id: '@preset/a', updatedAt: 5 }))).toBe(true);
      expect(await other.presets.list()).toEqual([
        presetRow({ id: '@preset/a', updatedAt: 5 }),
        presetRow(),
      ]);

      const replaced = presetRow({ definition: { id: '@preset/quick', model: 'sim/chat' } });
      expect(await other.presets.put({ ...replaced, updatedAt: 1_700_000_009 })).toBe(false);
      expect((await store.presets.list()).find((row) => row.id === '@preset/quick')).toEqual({
        ...replaced,
        updatedAt: 1_700_000_009,
      });

      expect(await store.presets.delete('@preset/quick')).toBe(true);
      expect(await other.presets.delete('@preset/quick')).toBe(false);
      expect((await other.presets.list()).map((row) => row.id)).toEqual(['@preset/a']);
    });

    it('moves the version with every change, for every store, and not otherwise', async () => {
      const store = await open();
      const other = await openAnother();
      const seen = [await other.presets.version()];
      await store.presets.put(presetRow());
      seen.push(await other.presets.version());
      await store.presets.put(presetRow({ updatedAt: 2 }));
      seen.push(await other.presets.version());
      await store.presets.delete('@preset/missing');
      expect(await other.presets.version()).toBe(seen.at(-1));
      await store.presets.delete('@preset/quick');
      seen.push(await other.presets.version());
      expect(new Set(seen).size).toBe(4);
    });

    // One store: on PostgreSQL its calls take pooled connections of their own, a real race; two
    // SQLite stores in one process would wait on each other's lock with the event loop held.
    it('tells exactly one of several writers racing for the same id that it was new', async () => {
      const store = await open();
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, index) => store.presets.put(presetRow({ updatedAt: index }))),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.presets.list()).toHaveLength(1);
    });
  });
}
