import { render, screen } from '@testing-library/react';
import { PageErrorBoundary } from './page-error-boundary';

function Failing(): never {
  throw new Error('Failed to fetch dynamically imported module');
}

describe('PageErrorBoundary', () => {
  beforeEach(() => {
    // React reports every error a boundary catches on the console; here they are expected.
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => vi.restoreAllMocks());

  it('says which page failed and why, and clears once another page is shown', () => {
    const view = render(
      <PageErrorBoundary resetKey="/keys">
        <Failing />
      </PageErrorBoundary>,
    );
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('Showing this page failed.');
    expect(alert).toHaveTextContent('Failed to fetch dynamically imported module');
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();

    view.rerender(
      <PageErrorBoundary resetKey="/catalog">
        <p>The catalog</p>
      </PageErrorBoundary>,
    );
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByText('The catalog')).toBeInTheDocument();
  });
});
