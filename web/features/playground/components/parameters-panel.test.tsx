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
      toolNames={['get_weather']}
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
    // Greyed with a quiet reason, not an orange warning on the first screen.
    const reason = screen.getByText(/sim\/echo-mini does not list “temperature”/);
    expect(reason.className).not.toMatch(/amber|red/);
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

  it('offers tool_choice modes and the defined tools', async () => {
    const user = userEvent.setup();
    const onChange = vi.fn();
    render(<Harness model={toolModel} onChange={onChange} />);
    const choice = screen.getByRole('combobox', { name: 'tool_choice' });
    await user.selectOptions(choice, 'function: get_weather');
    expect(onChange).toHaveBeenLastCalledWith(
      expect.objectContaining({ tool_choice: 'get_weather' }),
    );
    await user.selectOptions(choice, 'default (not sent)');
    expect(onChange).toHaveBeenLastCalledWith(expect.objectContaining({ tool_choice: null }));
  });

  it('checks a json_schema response format’s schema as it is typed', async () => {
    const user = userEvent.setup();
    const onChange = vi.fn();
    render(<Harness model={toolModel} onChange={onChange} />);
    await user.selectOptions(
      screen.getByRole('combobox', { name: 'response_format' }),
      'json_schema',
    );
    const schema = screen.getByRole('textbox', { name: 'JSON schema' });
    await user.type(schema, '{{"type": ');
    expect(screen.getByRole('alert')).toHaveTextContent(/^The JSON schema is not valid JSON: /);
    expect(schema).toHaveAttribute('aria-invalid', 'true');
    await user.type(schema, '"object"}');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(onChange).toHaveBeenLastCalledWith(
      expect.objectContaining({
        response_format: 'json_schema',
        response_schema: '{"type": "object"}',
      }),
    );
  });

  it('disables both for a model that lists neither, saying why', () => {
    render(<Harness model={textModel} onChange={vi.fn()} />);
    expect(screen.getByRole('combobox', { name: 'tool_choice' })).toBeDisabled();
    expect(screen.getByRole('combobox', { name: 'response_format' })).toHaveAccessibleDescription(
      /does not list “response_format”/,
    );
  });
});
