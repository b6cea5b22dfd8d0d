import { render, screen } from '@testing-library/react';
import { exampleToolsText } from '../build-request';
import { ToolsEditor } from './tools-editor';

describe('ToolsEditor', () => {
  it('does not claim a model the catalog does not list "does not list tools"', () => {
    render(
      <ToolsEditor
        text={exampleToolsText}
        onChange={vi.fn()}
        supported
        modelId="acme/brand-new"
        inCatalog={false}
      />,
    );
    expect(screen.getByRole('textbox', { name: 'Tool definitions (JSON array)' })).toBeEnabled();
    expect(screen.queryByText(/does not list/)).not.toBeInTheDocument();
    expect(screen.getByText(/acme\/brand-new is not in the catalog/)).toBeInTheDocument();
  });

  it('says why tools are disabled for a listed model without them', () => {
    render(
      <ToolsEditor
        text=""
        onChange={vi.fn()}
        supported={false}
        modelId="sim/echo-mini"
        inCatalog
      />,
    );
    expect(screen.getByText(/sim\/echo-mini does not list “tools”/)).toBeInTheDocument();
  });
});
