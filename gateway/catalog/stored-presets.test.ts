import type { PresetStore, StoredPresetRow } from '../store/presets';
import { capturingLogger, eventually } from '../../testing/gateway-support';
import { Catalog } from './catalog';
import { buildCatalogModels } from './catalog-builder';
import { RoutingNames } from './routing-names';
import { StoredPresets } from './stored-presets';

/** The store's behaviour as far as StoredPresets uses it, in memory. */
function memoryPresetStore(rows: StoredPresetRow[] = []): PresetStore {
  const kept = new Map(rows.map((row) => [row.id, row]));
  let version = 0;
  return {
    list: async () => [...kept.values()].sort((a, b) => a.id.localeCompare(b.id)),
    put: async (row) => {
      const created = !kept.has(row.id);
      kept.set(row.id, row);
      version += 1;
      return created;
    },
    delete: async (id) => {
      const deleted = kept.delete(id);
      if (deleted) version += 1;
      return deleted;
    },
    version: async () => version,
  };
}

const row = (definition: Record<string, unknown>): StoredPresetRow => ({
  id: String(definition.id),
  definition,
  updatedAt: 1,
});

const setUp = (rows: StoredPresetRow[]) => {
  const names = new RoutingNames(new Catalog(buildCatalogModels(null)), {
    presets: [{ id: '@preset/file', model: 'sim/echo-mini' }],
  });
  const store = memoryPresetStore(rows);
  const { logger, text } = capturingLogger('warn');
  return { names, store, presets: new StoredPresets(store, names, logger), log: text };
};

describe('stored presets', () => {
  it('serves the file preset over a stored one of the same id, and skips what it cannot serve, keeping it', async () => {
    const { names, store, presets, log } = setUp([
      row({ id: '@preset/file', model: 'sim/chat-standard' }),
      row({ id: '@preset/gone', model: 'sim/retired' }),
      row({ id: '@preset/odd', model: 'sim/chat-standard', unknown_field: 1 }),
      row({ id: '@preset/ok', model: 'sim/chat-standard' }),
    ]);
    await presets.reload();
    expect(names.presetList().map((preset) => [preset.id, preset.model])).toEqual([
      ['@preset/file', 'sim/echo-mini'],
      ['@preset/ok', 'sim/chat-standard'],
    ]);
    expect(log()).toContain('the stored preset @preset/file is not served: the providers file');
    expect(log()).toContain("the stored preset @preset/gone is not served: model: 'sim/retired'");
    expect(log()).toContain('the stored preset @preset/odd is not served: it is not a valid');
    expect(await store.list()).toHaveLength(4);
  });

  it('refuses to replace or delete a file preset, and writes nothing', async () => {
    const { store, presets } = setUp([]);
    await expect(presets.put({ id: '@preset/file', model: 'sim/chat-standard' })).rejects.toThrow(
      'is defined in the providers file',
    );
    await expect(presets.delete('@preset/file')).rejects.toMatchObject({ status: 409 });
    expect(await store.version()).toBe(0);
  });

  it('serves what it keeps at once, and what another instance keeps once the version moves', async () => {
    const { names, store, presets } = setUp([]);
    expect(await presets.put({ id: '@preset/mine', model: 'sim/chat-standard' })).toBe(true);
    expect(names.preset('@preset/mine')).toBeDefined();

    const stop = presets.watch(10);
    await store.put(row({ id: '@preset/theirs', model: 'sim/chat-standard' }));
    await eventually(() => names.preset('@preset/theirs'));
    await store.delete('@preset/mine');
    await eventually(() => (names.preset('@preset/mine') ? undefined : true));
    stop();
  });
});
