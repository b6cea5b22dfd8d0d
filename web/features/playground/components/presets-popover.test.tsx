import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createSession } from '../conversation-state';
import { presetsStore, savePreset } from '../presets-store';
import { PresetsPopover } from './presets-popover';

beforeEach(() => window.localStorage.clear());

describe('PresetsPopover', () => {
  it('asks before a preset saved under an existing name replaces it', async () => {
    const user = userEvent.setup();
    const session = { ...createSession('sim/chat-standard'), systemPrompt: 'New prompt' };
    savePreset({ ...session, name: 'Reviewer', systemPrompt: 'Old prompt' });
    render(<PresetsPopover session={session} onApply={vi.fn()} />);
    await user.click(screen.getByRole('button', { name: 'Presets (1)' }));
    await user.type(screen.getByRole('textbox', { name: /Save model, system prompt/ }), 'Reviewer');
    await user.click(screen.getByRole('button', { name: 'Save preset' }));

    expect(screen.getByRole('alert')).toHaveTextContent('A preset named “Reviewer” exists.');
    expect(presetsStore.read()[0]?.systemPrompt).toBe('Old prompt');
    await user.click(screen.getByRole('button', { name: 'Keep the old one' }));
    expect(presetsStore.read()[0]?.systemPrompt).toBe('Old prompt');

    await user.click(screen.getByRole('button', { name: 'Save preset' }));
    await user.click(screen.getByRole('button', { name: 'Replace' }));
    expect(presetsStore.read()).toHaveLength(1);
    expect(presetsStore.read()[0]?.systemPrompt).toBe('New prompt');
  });

  it('saves a new name at once', async () => {
    const user = userEvent.setup();
    render(<PresetsPopover session={createSession('sim/chat-standard')} onApply={vi.fn()} />);
    await user.click(screen.getByRole('button', { name: 'Presets' }));
    await user.type(screen.getByRole('textbox', { name: /Save model, system prompt/ }), 'Fresh');
    await user.click(screen.getByRole('button', { name: 'Save preset' }));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(presetsStore.read().map((preset) => preset.name)).toEqual(['Fresh']);
  });
});
