// @vitest-environment jsdom
// (happy-dom's `a ~ b` selector finds only the first sibling)
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { makeModel } from '../../../test/fixtures';
import { ModelCombobox } from './model-combobox';

describe('ModelCombobox', () => {
  it('lists models by name, each marked with tools, images and reasoning when it takes them', async () => {
    // In catalog order, which is not by name.
    const models = [
      makeModel({
        id: 'zeta/vision',
        name: 'Vision Pro',
        input_modalities: ['text', 'image'],
        supported_parameters: ['max_tokens', 'tools', 'reasoning'],
      }),
      makeModel({ id: 'acme/plain', name: 'plain text' }),
      makeModel({
        id: 'beta/thinker',
        name: 'Deep Thinker',
        supported_parameters: ['max_tokens', 'reasoning'],
      }),
      makeModel({ id: 'alpha/zed', name: 'Zed' }),
    ];
    render(<ModelCombobox label="Model" value="" models={models} onChange={() => {}} />);
    await userEvent.click(screen.getByRole('combobox', { name: 'Model' }));
    const options = within(screen.getByRole('listbox')).getAllByRole('option');
    expect(options.map((option) => option.querySelector('.font-mono')?.textContent)).toEqual([
      'beta/thinker',
      'acme/plain',
      'zeta/vision',
      'alpha/zed',
    ]);
    const marks = (option: HTMLElement) =>
      Array.from(option.querySelectorAll('.font-mono ~ span'), (mark) => mark.textContent);
    expect(marks(options[0]!)).toEqual(['reasoning']);
    expect(marks(options[1]!)).toEqual([]);
    expect(marks(options[2]!)).toEqual(['tools', 'images', 'reasoning']);
    // The marks are words, so they are part of each option's name too.
    expect(options[2]).toHaveAccessibleName(/^zeta\/vision tools images reasoning/);
  });
});
