// @vitest-environment happy-dom
// (the store keeps its entries in localStorage)
import { defaultParameters } from './playground-types';
import { deletePreset, presetsStore, savePreset } from './presets-store';

beforeEach(() => window.localStorage.clear());

describe('presets store', () => {
  const preset = {
    name: 'Terse ',
    model: 'sim/chat-standard',
    systemPrompt: 'Answer in one line. Key: sk-abcdefghijklmnopqrstuv',
    parameters: { ...defaultParameters, temperature: 0 },
    toolsText: '',
  };

  it('saves a preset under its trimmed name, replacing one of the same name, without key-shaped text', () => {
    expect(savePreset(preset, 1)).toBe(true);
    expect(savePreset({ ...preset, name: 'Terse', model: 'sim/echo-mini' }, 2)).toBe(true);
    const presets = presetsStore.read();
    expect(presets).toHaveLength(1);
    expect(presets[0]).toMatchObject({
      name: 'Terse',
      model: 'sim/echo-mini',
      parameters: { temperature: 0 },
    });
    expect(presets[0]?.systemPrompt).not.toContain('sk-abcdefghijklmnopqrstuv');
  });

  it('deletes a preset', () => {
    savePreset(preset, 1);
    const [saved] = presetsStore.read();
    deletePreset(saved?.id ?? '');
    expect(presetsStore.read()).toEqual([]);
  });
});
