/** Saved presets of model, system prompt, parameters and tools: save the current ones, apply one. */
import { Popover } from 'radix-ui';
import { useState } from 'react';
import { Button } from '../../../components/button';
import { deletePreset, savePreset, usePresets, type Preset } from '../presets-store';
import type { PlaygroundSession } from '../playground-types';

export function PresetsPopover({
  session,
  onApply,
}: {
  session: PlaygroundSession;
  onApply(preset: Preset): void;
}) {
  const presets = usePresets();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  // A name already in use is replaced only after a yes: the old preset is gone otherwise.
  const [confirmingName, setConfirmingName] = useState<string | null>(null);

  function save() {
    const saved = savePreset({
      name,
      model: session.model,
      systemPrompt: session.systemPrompt,
      parameters: session.parameters,
      toolsText: session.toolsText,
    });
    setProblem(saved ? null : 'The browser refused to store the preset (storage full or blocked).');
    setConfirmingName(null);
    if (saved) setName('');
  }
  return (
    <Popover.Root open={open} onOpenChange={setOpen}>
      <Popover.Trigger asChild>
        <Button size="small">Presets{presets.length > 0 ? ` (${presets.length})` : ''}</Button>
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content
          align="end"
          sideOffset={4}
          aria-label="Presets"
          className="z-50 flex w-80 max-w-[calc(100vw-1rem)] flex-col gap-3 rounded-md border border-zinc-200 bg-white p-3 shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
        >
          <form
            className="flex flex-col gap-1.5"
            onSubmit={(event) => {
              event.preventDefault();
              if (name.trim() === '') {
                setProblem('Give the preset a name.');
                return;
              }
              if (presets.some((preset) => preset.name === name.trim())) {
                setConfirmingName(name.trim());
                return;
              }
              save();
            }}
          >
            <label htmlFor="playground-preset-name" className="text-xs font-medium">
              Save model, system prompt, parameters and tools as
            </label>
            <div className="flex gap-2">
              <input
                id="playground-preset-name"
                value={name}
                onChange={(event) => {
                  setName(event.target.value);
                  setConfirmingName(null);
                }}
                placeholder="Preset name"
                className="h-8 min-w-0 flex-1 rounded-md border border-zinc-300 bg-white px-2 text-sm dark:border-zinc-700 dark:bg-zinc-950"
              />
              <Button type="submit" size="small" variant="primary">
                Save preset
              </Button>
            </div>
            {problem && (
              <p role="alert" className="text-xs text-red-700 dark:text-red-300">
                {problem}
              </p>
            )}
            {confirmingName && (
              <div
                role="alert"
                className="flex flex-col gap-1.5 rounded-md border border-amber-300 bg-amber-50 p-2 text-xs text-amber-950 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-100"
              >
                <p>
                  A preset named “{confirmingName}” exists. Replace it with the current settings?
                </p>
                <div className="flex gap-2">
                  <Button size="small" variant="primary" onClick={save}>
                    Replace
                  </Button>
                  <Button size="small" onClick={() => setConfirmingName(null)}>
                    Keep the old one
                  </Button>
                </div>
              </div>
            )}
          </form>
          {presets.length === 0 ? (
            <p className="text-xs text-zinc-500 dark:text-zinc-400">No presets saved yet.</p>
          ) : (
            <ul aria-label="Saved presets" className="flex max-h-64 flex-col gap-1 overflow-y-auto">
              {presets.map((preset) => (
                <li
                  key={preset.id}
                  className="flex items-center gap-2 rounded px-1 py-1 hover:bg-zinc-50 dark:hover:bg-zinc-800"
                >
                  <div className="min-w-0 flex-1">
                    <p className="truncate text-sm font-medium">{preset.name}</p>
                    <p className="truncate font-mono text-xs text-zinc-500 dark:text-zinc-400">
                      {preset.model || 'no model'}
                    </p>
                  </div>
                  <Button
                    size="small"
                    onClick={() => {
                      onApply(preset);
                      setOpen(false);
                    }}
                    aria-label={`Apply preset ${preset.name}`}
                  >
                    Apply
                  </Button>
                  <Button
                    size="small"
                    variant="ghost"
                    onClick={() => deletePreset(preset.id)}
                    aria-label={`Delete preset ${preset.name}`}
                  >
                    Delete
                  </Button>
                </li>
              ))}
            </ul>
          )}
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
