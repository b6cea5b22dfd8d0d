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
    const { currentLocation } = renderRoute('/');
    await waitFor(() => expect(currentLocation().pathname).toBe('/catalog'));
  });

  it('has the navigation links and the Key combobox on every page', async () => {
    mockShell();
    for (const path of ['/keys', '/endpoints']) {
      const view = renderRoute(path);
      // Pages other than the catalog load when first visited: wait for the route.
      const navigation = await screen.findByRole('navigation', { name: 'Main' });
      for (const name of ['Catalog', 'Playground', 'Keys', 'Endpoints']) {
        expect(within(navigation).getByRole('link', { name })).toBeInTheDocument();
      }
      await waitFor(() =>
        expect(screen.getByRole('combobox', { name: 'Key' })).toHaveTextContent('demo-account'),
      );
      view.unmount();
    }
  });

  it('keeps a ?profile= of the URL on the navigation links, so the next page is shareable too', async () => {
    mockShell();
    const { currentLocation } = renderRoute('/keys?profile=demo-shared-child');
    const navigation = await screen.findByRole('navigation', { name: 'Main' });
    await waitFor(() =>
      expect(within(navigation).getByRole('link', { name: 'Activity' })).toHaveAttribute(
        'href',
        '/activity?profile=demo-shared-child',
      ),
    );
    await userEvent.click(within(navigation).getByRole('link', { name: 'Endpoints' }));
    await waitFor(() => expect(currentLocation().pathname).toBe('/endpoints'));
    expect(currentLocation().search).toBe('?profile=demo-shared-child');
  });

  it('keeps a ?profile= on the links while the profiles load, so a quick click keeps it', async () => {
    // Nothing answers: the profiles are still loading when the links are followed.
    vi.stubGlobal(
      'fetch',
      vi.fn(() => new Promise<Response>(() => undefined)),
    );
    renderRoute('/catalog?profile=demo-shared-child');
    const navigation = await screen.findByRole('navigation', { name: 'Main' });
    expect(within(navigation).getByRole('link', { name: 'Activity' })).toHaveAttribute(
      'href',
      '/activity?profile=demo-shared-child',
    );
  });

  it('leaves an unknown ?profile= off the links', async () => {
    mockShell();
    renderRoute('/keys?profile=nope');
    await screen.findByText(/asks for the key profile/);
    expect(
      within(screen.getByRole('navigation', { name: 'Main' })).getByRole('link', {
        name: 'Activity',
      }),
    ).toHaveAttribute('href', '/activity');
  });

  it('adds no ?profile= to the links when the URL has none', async () => {
    mockShell();
    renderRoute('/keys');
    const navigation = await screen.findByRole('navigation', { name: 'Main' });
    await waitFor(() =>
      expect(screen.getByRole('combobox', { name: 'Key' })).toHaveTextContent('demo-account'),
    );
    expect(within(navigation).getByRole('link', { name: 'Activity' })).toHaveAttribute(
      'href',
      '/activity',
    );
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

  it('names each Key option by all it shows, and keeps the page out of reach while open', async () => {
    mockShell();
    renderRoute('/keys');
    const combobox = await screen.findByRole('combobox', { name: 'Key' });
    await waitFor(() => expect(combobox).toHaveTextContent('demo-account'));
    await userEvent.click(combobox);
    // The visible masked key and kind are part of the name (WCAG 2.5.3, label in name).
    const option = await screen.findByRole('option', {
      name: 'demo-shared-child sk-gw-…e5f6 · shared child',
    });
    // Hidden from screen readers by Radix, the page is inert too: Tab cannot reach it unheard.
    const navigation = screen.getByRole('navigation', { name: 'Main', hidden: true });
    expect(navigation.closest('[inert]')).not.toBeNull();
    expect(option.closest('[inert]')).toBeNull();
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('listbox')).not.toBeInTheDocument());
    expect(navigation.closest('[inert]')).toBeNull();
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

  it('writes the chosen profile to the URL', async () => {
    mockShell();
    const { currentLocation } = renderRoute('/keys');
    const combobox = await screen.findByRole('combobox', { name: 'Key' });
    await waitFor(() => expect(combobox).toHaveTextContent('demo-account'));
    await userEvent.click(combobox);
    await userEvent.click(await screen.findByRole('option', { name: /demo-allocated-child/ }));
    await waitFor(() => expect(currentLocation().search).toBe('?profile=demo-allocated-child'));
  });

  it('says that a ?profile= in the URL is unknown, and which profile it shows instead', async () => {
    mockShell();
    renderRoute('/keys?profile=nope');
    const notice = await screen.findByText(/asks for the key profile/);
    expect(notice).toHaveTextContent('“nope”, which is unknown: showing “demo-account” instead.');
    expect(notice).toHaveTextContent('demo-allocated-child');
    await userEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    await waitFor(() =>
      expect(screen.queryByText(/asks for the key profile/)).not.toBeInTheDocument(),
    );
  });

  it('shows the banner when the gateway stops while the page is open, and removes it when it is back', async () => {
    let reachable = true;
    mockPageApi({
      'GET /api/health': () =>
        reachable
          ? reachableHealth
          : {
              ...reachableHealth,
              mode: 'external',
              reachable: false,
              latency_ms: null,
              error: 'Cannot connect (ECONNREFUSED) (stage: connect)',
              advice: 'Check that the gateway is running and that GATEWAY_BASE_URL points at it.',
            },
      'GET /api/checks': () => ({ profile: 'demo-account', ran_at: null, results: [] }),
    });
    renderRoute('/endpoints');
    await screen.findByRole('combobox', { name: 'Key' });
    expect(screen.queryByText(/does not answer/)).not.toBeInTheDocument();
    reachable = false;
    const started = Date.now();
    const banner = await screen.findByText(/does not answer/, {}, { timeout: 2_500 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(banner).toHaveTextContent('GATEWAY_BASE_URL');
    expect(banner).not.toHaveTextContent('embedded');
    reachable = true;
    const back = Date.now();
    await waitFor(() => expect(screen.queryByText(/does not answer/)).not.toBeInTheDocument(), {
      timeout: 2_500,
    });
    expect(Date.now() - back).toBeLessThan(2_000);
  });

  it('says the embedded gateway is being restarted, with the attempt', async () => {
    mockPageApi({
      'GET /api/health': () => ({
        ...reachableHealth,
        reachable: false,
        latency_ms: null,
        error: 'The embedded gateway stopped (signal SIGKILL); restarting it (attempt 2).',
        advice: 'The workbench runs the embedded gateway and restarts it when it stops.',
        embedded_gateway: {
          state: 'restarting',
          attempt: 2,
          restarts: 1,
          last_exit: 'signal SIGKILL',
          retry_in_ms: 3000,
        },
      }),
      'GET /api/checks': () => ({ profile: 'demo-account', ran_at: null, results: [] }),
    });
    renderRoute('/endpoints');
    expect(
      await screen.findByText('The embedded gateway stopped; restarting (attempt 2)…'),
    ).toBeInTheDocument();
  });

  it('says so when the gateway does not answer', async () => {
    mockShell(false);
    renderRoute('/keys');
    expect(await screen.findByText(/does not answer: connect ECONNREFUSED/)).toBeInTheDocument();
  });
});
