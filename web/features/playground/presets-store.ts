/** Saved presets: a model, a system prompt, parameters and tools, applied in one click. */
import { z } from 'zod';
import { redactKeys } from './code-export/shared';
import { createLocalListStore, useLocalList } from './local-store';
import { parametersSchema } from './playground-types';

export const presetsStorageKey = 'workbench.playground.presets.v1';

export const presetSchema = z.object({
  id: z.string(),
  name: z.string(),
  model: z.string(),
  systemPrompt: z.string(),
  parameters: parametersSchema,
  toolsText: z.string(),
  savedAt: z.number(),
});
export type Preset = z.infer<typeof presetSchema>;

export const presetsStore = createLocalListStore(presetsStorageKey, presetSchema);

export function usePresets(): Preset[] {
  return useLocalList(presetsStore);
}

/** Saves a preset; one with the same name is replaced. Returns false when storage refused. */
export function savePreset(preset: Omit<Preset, 'id' | 'savedAt'>, now = Date.now()): boolean {
  const name = preset.name.trim();
  const others = presetsStore.read().filter((existing) => existing.name !== name);
  const saved: Preset = {
    ...preset,
    name,
    systemPrompt: redactKeys(preset.systemPrompt),
    id: `preset-${now.toString(36)}-${Math.random().toString(36).slice(2, 7)}`,
    savedAt: now,
  };
  return presetsStore.write([saved, ...others]);
}

export function deletePreset(id: string): void {
  presetsStore.write(presetsStore.read().filter((preset) => preset.id !== id));
}
