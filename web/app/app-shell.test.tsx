import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { makeBalanceView, reachableHealth } from '../test/fixtures';
import { mockPageApi, renderRoute } from '../test/render-app';

function mockShell(reachable = true) {
  return mockPageApi({
    'GET /api/health': () =>
      reachable
        ? reachableHealth
        : { ...reachableHealth, reachable: false, latency_ms: null, error: 'connect ECONNREFUSED' },
    'GET /api/balance': (request) =>
      makeBalanceView({ profile: request.url.searchParams.get('profile') ?? '' }),
    'GET /api/checks': (request) => ({
      profile: request.url.searchParams.get('profile') ?? '',
      ran_at: null,
      results: [],
    }),
  });
}

describe('app shell', () => {
  it('sends / to /catalog', async () => {
    mockShell();
    const { router } = renderRoute('/');
    await waitFor(() => expect(router.state.location.pathname).toBe('/catalog'));
  });

  it('has the navigation links and the Key combobox on every page', async () => {
    mockShell();
    for (const path of ['/keys', '/endpoints']) {
      const view = renderRoute(path);
      const navigation = screen.getByRole('navigation', { name: 'Main' });
      for (const name of ['Catalog', 'Playground', 'Keys', 'Endpoints']) {
        expect(within(navigation).getByRole('link', { name })).toBeInTheDocument();
      }
      await waitFor(() =>
        expect(screen.getByRole('combobox', { name: 'Key' })).toHaveTextContent('demo-account'),
      );
      view.unmount();
    }
  });

  it('defaults to the first profile and remembers a choice by name only', async () => {
    mockShell();
    renderRoute('/keys');
    const combobox = await screen.findByRole('combobox', { name: 'Key' });
    await waitFor(() => expect(combobox).toHaveTextContent('demo-account'));
    await userEvent.click(combobox);
    await userEvent.click(await screen.findByRole('option', { name: /demo-shared-child/ }));
    await waitFor(() => expect(combobox).toHaveTextContent('demo-shared-child'));
    expect(window.localStorage.getItem('workbench.profile')).toBe('demo-shared-child');
    expect(JSON.stringify({ ...window.localStorage })).not.toMatch(/sk-/);
  });

  it('restores a stored profile, and falls back to the first when it is gone', async () => {
    mockShell();
    const first = renderRoute('/keys', {
      storage: { 'workbench.profile': 'demo-allocated-child' },
    });
    await waitFor(() =>
      expect(screen.getByRole('combobox', { name: 'Key' })).toHaveTextContent(
        'demo-allocated-child',
      ),
    );
    first.unmount();
    renderRoute('/keys', { storage: { 'workbench.profile': 'deleted-profile' } });
    await waitFor(() =>
      expect(screen.getByRole('combobox', { name: 'Key' })).toHaveTextContent('demo-account'),
    );
  });

  it('lets ?profile= in the URL choose the profile', async () => {
    mockShell();
    renderRoute('/endpoints?profile=demo-shared-child');
    await waitFor(() =>
      expect(screen.getByRole('combobox', { name: 'Key' })).toHaveTextContent('demo-shared-child'),
    );
  });

  it('says so when the gateway does not answer', async () => {
    mockShell(false);
    renderRoute('/keys');
    expect(await screen.findByText(/does not answer: connect ECONNREFUSED/)).toBeInTheDocument();
  });
});
