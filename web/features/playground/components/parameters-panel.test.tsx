import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import type { CatalogModel } from '../../../../contract/workbench-api';
import { defaultParameters, type Parameters } from '../playground-types';
import { textModel, toolModel } from '../test-fixtures';
import { ParametersPanel } from './parameters-panel';

function Harness({
  model,
  onChange,
}: {
  model: CatalogModel;
  onChange(parameters: Parameters): void;
}) {
  const [parameters, setParameters] = useState(defaultParameters);
  return (
    <ParametersPanel
      parameters={parameters}
      model={model}
      onChange={(changes) => {
        const next = { ...parameters, ...changes };
        setParameters(next);
        onChange(next);
      }}
    />
  );
}

describe('ParametersPanel', () => {
  it('disables the parameters the model does not list, saying why', () => {
    render(<Harness model={textModel} onChange={vi.fn()} />);
    const temperature = screen.getByRole('spinbutton', { name: 'temperature' });
    expect(temperature).toBeDisabled();
    expect(temperature).toHaveAccessibleDescription(/sim\/echo-mini does not list “temperature”/);
    expect(screen.getByRole('spinbutton', { name: 'max_tokens' })).toBeEnabled();
    expect(screen.getByRole('textbox', { name: 'stop' })).toBeEnabled();
  });

  it('passes typed values up, empty meaning the model’s default, and flags out-of-range ones', async () => {
    const user = userEvent.setup();
    const onChange = vi.fn();
    render(<Harness model={toolModel} onChange={onChange} />);
    const temperature = screen.getByRole('spinbutton', { name: 'temperature' });
    await user.type(temperature, '0.7');
    expect(onChange).toHaveBeenLastCalledWith(expect.objectContaining({ temperature: 0.7 }));
    await user.clear(temperature);
    expect(onChange).toHaveBeenLastCalledWith(expect.objectContaining({ temperature: null }));
    await user.type(temperature, '3');
    expect(screen.getByRole('alert')).toHaveTextContent('temperature must be between 0 and 2.');
  });

  it('reads stop sequences one per line and toggles streaming', async () => {
    const user = userEvent.setup();
    const onChange = vi.fn();
    render(<Harness model={toolModel} onChange={onChange} />);
    await user.type(screen.getByRole('textbox', { name: 'stop' }), 'END{Enter}STOP');
    expect(onChange).toHaveBeenLastCalledWith(expect.objectContaining({ stop: ['END', 'STOP'] }));
    const stream = screen.getByRole('checkbox', { name: 'Stream the reply' });
    // The hint describes the state the box is in.
    expect(stream).toBeChecked();
    expect(stream).toHaveAccessibleDescription(/^On: the reply arrives token by token/);
    await user.click(stream);
    expect(onChange).toHaveBeenLastCalledWith(expect.objectContaining({ stream: false }));
    expect(stream).toHaveAccessibleDescription(/^Off: one JSON answer/);
  });
});
