import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { makeBalanceView, makeCatalog, makeModel } from '../../test/fixtures';
import { jsonResponse, mockPageApi, renderRoute } from '../../test/render-app';

function mockCatalog(models = makeCatalog(2000), skipped = 0) {
  return mockPageApi({
    'GET /api/catalog': () => ({ models, fetched_at: 1_760_000_000_000, skipped }),
    // Each model's providers, all healthy, as the catalog lists them.
    'GET /api/catalog/endpoints': (request) => {
      const model = models.find((entry) => entry.id === request.url.searchParams.get('model'));
      return {
        model: model?.id,
        endpoints: (model?.providers ?? []).map((provider, index) => ({
          provider,
          kind: 'openai-compatible',
          upstream_model: `${provider}-upstream`,
          order: index + 1,
          prompt_price: model?.prompt_price ?? null,
          completion_price: model?.completion_price ?? null,
          context_length: model?.context_length ?? null,
          max_completion_tokens: 4096,
          status: index === 0 ? 'healthy' : 'cooling_down',
          retry_after: index === 0 ? null : 20,
          // The first provider had traffic in the last 30 minutes, the others none.
          uptime_last_30m: index === 0 ? 0.98 : null,
          latency_ms_p50: index === 0 ? 850 : null,
          ttft_ms_p50: index === 0 ? 210 : null,
        })),
        fetched_at: 1_760_000_000_000,
        cf_ray: null,
        skipped: 0,
      };
    },
  });
}

function visibleIds(): string[] {
  const table = screen.getByRole('table', { name: 'Models' });
  return within(table)
    .getAllByRole('row')
    .slice(1)
    .map((row) => row.querySelector('.font-mono')?.textContent ?? '');
}

describe('CatalogPage', () => {
  // jsdom lays nothing out: give the scroll box a viewport and each row a height, as a
  // browser would, so the virtualiser renders what is in view.
  const sizes = { clientHeight: 640, clientWidth: 1024, offsetHeight: 60, offsetWidth: 1024 };
  const originals = Object.keys(sizes).map(
    (name) => [name, Object.getOwnPropertyDescriptor(HTMLElement.prototype, name)] as const,
  );
  beforeAll(() => {
    for (const [name, value] of Object.entries(sizes)) {
      Object.defineProperty(HTMLElement.prototype, name, { configurable: true, get: () => value });
    }
  });
  afterAll(() => {
    for (const [name, descriptor] of originals) {
      if (descriptor) Object.defineProperty(HTMLElement.prototype, name, descriptor);
    }
  });

  it('lists 2,000 models but renders only the rows in view', async () => {
    mockCatalog();
    renderRoute('/catalog');
    expect(await screen.findByText('2,000 models', { exact: false })).toBeInTheDocument();
    const rows = within(screen.getByRole('table', { name: 'Models' })).getAllByRole('row');
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.length).toBeLessThan(60);
    expect(screen.getByRole('table', { name: 'Models' })).toHaveAttribute('aria-rowcount', '2001');
  });

  it("lists only the models the profile's key may use, and says why the others are missing", async () => {
    mockPageApi({
      'GET /api/catalog': () => ({
        models: [
          makeModel({ id: 'sim/chat-standard', name: 'Chat Standard' }),
          makeModel({ id: 'sim/reasoner-large', name: 'Reasoner' }),
          makeModel({ id: 'sim/echo-mini:free', name: 'Echo Mini (free)' }),
        ],
        fetched_at: 1_760_000_000_000,
        skipped: 0,
      }),
      'GET /api/balance': () =>
        makeBalanceView({ balance: { allowed_models: ['sim/chat-*', '*:free'] } }),
    });
    renderRoute('/catalog');
    await waitFor(() => expect(visibleIds()).toEqual(['sim/chat-standard', 'sim/echo-mini:free']));
    expect(screen.getByRole('note')).toHaveTextContent(
      'may use only sim/chat-*, *:free: 1 other model of the catalog is not listed',
    );
  });

  it('filters by search and writes it to the URL', async () => {
    mockCatalog([
      makeModel({ id: 'openai/gpt-4o', name: 'GPT-4o' }),
      makeModel({
        id: 'anthropic/claude-sonnet',
        name: 'Claude Sonnet',
        description: 'careful writer',
      }),
      makeModel({ id: 'meta-llama/llama-3:free', name: 'Llama 3' }),
    ]);
    const { currentLocation } = renderRoute('/catalog');
    await screen.findByText('openai/gpt-4o');
    await userEvent.type(screen.getByRole('searchbox', { name: 'Search models' }), 'writer');
    await waitFor(() => expect(visibleIds()).toEqual(['anthropic/claude-sonnet']));
    // The URL follows once typing pauses.
    await waitFor(() =>
      expect(new URLSearchParams(currentLocation().search).get('q')).toBe('writer'),
    );
    expect(screen.getByText('1 of 3 models', { exact: false })).toBeInTheDocument();
  });

  it('reads filters and sorting from the URL', async () => {
    mockCatalog([
      makeModel({ id: 'openai/gpt-4o', name: 'GPT-4o', prompt_price: '0.0000025' }),
      makeModel({ id: 'openai/gpt-4o-mini', name: 'GPT-4o mini', prompt_price: '0.00000015' }),
      makeModel({ id: 'anthropic/claude', name: 'Claude', prompt_price: '0.000003' }),
      makeModel({ id: 'openai/gpt-4o:free', name: 'GPT-4o free', prompt_price: '0' }),
    ]);
    renderRoute('/catalog?author=openai&variant=none&sort=prompt&dir=desc');
    await screen.findByText('openai/gpt-4o');
    expect(visibleIds()).toEqual(['openai/gpt-4o', 'openai/gpt-4o-mini']);
    expect(screen.getByText('$2.50')).toBeInTheDocument();
    expect(screen.getByText('$0.15')).toBeInTheDocument();
  });

  it('shows the variant as a badge and the full id as text', async () => {
    mockCatalog([
      makeModel({
        id: 'meta-llama/llama-3:free',
        name: 'Llama 3',
        variant: 'free',
        context_length: 131_072,
      }),
    ]);
    renderRoute('/catalog');
    expect(await screen.findByText('meta-llama/llama-3:free')).toBeInTheDocument();
    expect(screen.getByText(':free')).toBeInTheDocument();
    expect(screen.getAllByText('128K').length).toBeGreaterThan(0);
  });

  it('sorts when a column header is clicked', async () => {
    mockCatalog([
      makeModel({ id: 'a/small', name: 'Small', context_length: 8192 }),
      makeModel({ id: 'b/large', name: 'Large', context_length: 1_000_000 }),
    ]);
    const { currentLocation } = renderRoute('/catalog');
    await screen.findByText('a/small');
    expect(visibleIds()).toEqual(['b/large', 'a/small']);
    await userEvent.click(screen.getByRole('button', { name: /^Context/ }));
    await waitFor(() => expect(visibleIds()).toEqual(['b/large', 'a/small']));
    expect(new URLSearchParams(currentLocation().search).get('sort')).toBe('context');
    await userEvent.click(screen.getByRole('button', { name: /^Context/ }));
    await waitFor(() => expect(visibleIds()).toEqual(['a/small', 'b/large']));
  });

  it('names the direction toggle by the word it shows, so it can be spoken to', async () => {
    mockCatalog([makeModel({ id: 'a/small' }), makeModel({ id: 'b/large' })]);
    renderRoute('/catalog?sort=name&dir=asc');
    await screen.findByText('a/small');
    // Label in name (WCAG 2.5.3): the visible words, arrows aside, begin the accessible name.
    const visibleWords = (element: HTMLElement) =>
      (element.textContent ?? '').replace(/[^\p{L}\p{N} ]/gu, '').trim();
    const toggle = screen.getByRole('button', { name: /ascending/ });
    expect(visibleWords(toggle)).toBe('Asc');
    expect(toggle).toHaveAccessibleName(/^Asc\b/);
    await userEvent.click(toggle);
    const descending = await screen.findByRole('button', { name: /descending, change/ });
    expect(visibleWords(descending)).toBe('Desc');
    expect(descending).toHaveAccessibleName(/^Desc\b/);
  });

  it('opens a detail panel with every field, unknown raw fields, curl and a playground link', async () => {
    const model = makeModel({
      id: 'openai/gpt-4o',
      name: 'GPT-4o',
      raw: {
        id: 'openai/gpt-4o',
        name: 'GPT-4o',
        pricing: { prompt: '0.0000025', image: '0.003' },
        context_length: 128_000,
        top_provider: {
          context_length: 128_000,
          max_completion_tokens: 16_384,
          is_moderated: true,
        },
      },
      context_length: 128_000,
      max_completion_tokens: 16_384,
    });
    mockCatalog([model]);
    const { currentLocation } = renderRoute('/catalog');
    await userEvent.click(await screen.findByRole('button', { name: 'Details of GPT-4o' }));
    const dialog = await screen.findByRole('dialog');
    expect(new URLSearchParams(currentLocation().search).get('model')).toBe('openai/gpt-4o');
    // The maximum output has a row of its own; only the parts of top_provider the panel does not
    // show (is_moderated) are listed as unknown.
    expect(within(dialog).getByText('Max output').nextElementSibling).toHaveTextContent(
      '16K (16,384 tokens per answer)',
    );
    const other = within(dialog).getByRole('heading', { name: 'Other fields' }).parentElement!;
    expect(within(other).getByText('top_provider.is_moderated')).toBeInTheDocument();
    expect(within(other).queryByText('top_provider')).not.toBeInTheDocument();
    expect(within(other).queryByText('top_provider.max_completion_tokens')).not.toBeInTheDocument();
    expect(within(other).queryByText('top_provider.context_length')).not.toBeInTheDocument();
    expect(within(dialog).getByText('pricing.image')).toBeInTheDocument();
    expect(within(dialog).getByText(/"is_moderated": true/)).toBeInTheDocument();
    const curl = within(dialog).getByText(
      /curl 'http:\/\/127\.0\.0\.1:8787\/v1\/chat\/completions'/,
    );
    expect(curl.textContent).toContain('Authorization: Bearer $GATEWAY_API_KEY');
    expect(curl.textContent).toContain('"model": "openai/gpt-4o"');
    expect(curl.textContent).not.toMatch(/sk-/);
    expect(within(dialog).getByRole('link', { name: 'Try in playground' })).toHaveAttribute(
      'href',
      '/playground?model=openai%2Fgpt-4o',
    );
    expect(within(dialog).getByRole('button', { name: 'Copy model id' })).toBeInTheDocument();
  });

  it('shows who serves each model, and each provider with its status in the panel', async () => {
    mockCatalog([
      makeModel({
        id: 'openai/gpt-4o',
        name: 'GPT-4o',
        providers: ['openai', 'azure', 'backup'],
        raw: { id: 'openai/gpt-4o', providers: ['openai', 'azure', 'backup'] },
      }),
      makeModel({ id: 'sim/echo', name: 'Echo', providers: ['simulated'] }),
    ]);
    renderRoute('/catalog');
    const table = await screen.findByRole('table', { name: 'Models' });
    const gpt = within(table).getByRole('row', { name: /GPT-4o/ });
    expect(gpt).toHaveTextContent(/via openai\s*\+2 and 2 more/);
    expect(
      within(gpt).getByTitle('Providers, in fallback order: openai, azure, backup'),
    ).toBeVisible();
    expect(within(table).getByRole('row', { name: /Echo/ })).toHaveTextContent('via simulated');

    await userEvent.click(screen.getByRole('button', { name: 'Details of GPT-4o' }));
    const dialog = await screen.findByRole('dialog');
    const providers = await within(dialog).findByRole('list', { name: /Providers/ });
    const items = within(providers).getAllByRole('listitem');
    expect(items.map((item) => item.querySelector('.font-mono')?.textContent)).toEqual([
      'openai',
      'azure',
      'backup',
    ]);
    expect(items[0]).toHaveTextContent('Healthy');
    expect(items[1]).toHaveTextContent(/Cooling down · retry in \d+ s/);
    // Real traffic of the last 30 minutes; none is said in words, not as 0%.
    expect(items[0]).toHaveTextContent('98% uptime · latency p50 850 ms');
    expect(items[0]).toHaveTextContent('time to first token p50 210 ms');
    expect(items[1]).toHaveTextContent('No traffic in the last 30 minutes');
    // The providers are listed in their own section, not again among the unknown fields.
    expect(within(dialog).queryByText('providers', { exact: true })).not.toBeInTheDocument();
  });

  it('opens the panel from a bookmarked ?model= and says when the model is unknown', async () => {
    mockCatalog([makeModel({ id: 'openai/gpt-4o' })]);
    renderRoute('/catalog?model=gone%2Fmodel');
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('Model not in the catalog')).toBeInTheDocument();
  });

  it('says what failed, at which stage, with the cf-ray and what to do', async () => {
    mockPageApi({
      'GET /api/catalog': () =>
        jsonResponse(502, {
          error: {
            message: 'The gateway answered 500.',
            stage: 'gateway',
            upstream_status: 500,
            cf_ray: '0123456789abcdef-AMS',
            advice: 'Try again in a minute.',
          },
        }),
    });
    renderRoute('/catalog');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Loading the catalog failed.');
    expect(alert).toHaveTextContent('The gateway answered 500.');
    expect(alert).toHaveTextContent('0123456789abcdef-AMS');
    expect(alert).toHaveTextContent('Try again in a minute.');
    expect(alert).toHaveTextContent('gateway HTTP 500');
  });

  it('Refresh asks past the workbench’s cache, and a failed refresh says so above the old list', async () => {
    const models = [makeModel({ id: 'openai/gpt-4o' })];
    let gatewayDown = false;
    const requests = mockPageApi({
      'GET /api/catalog': () =>
        gatewayDown
          ? jsonResponse(502, {
              error: { message: 'Cannot connect to the gateway.', stage: 'connect' },
            })
          : { models, fetched_at: 1_760_000_000_000, skipped: 0 },
    });
    renderRoute('/catalog');
    await screen.findByText('openai/gpt-4o');
    gatewayDown = true;
    await userEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Refreshing the catalog failed.');
    expect(alert).toHaveTextContent('Cannot connect to the gateway.');
    const catalogCalls = requests.filter((request) => request.url.pathname === '/api/catalog');
    expect(catalogCalls[0]?.url.search).toBe('');
    expect(catalogCalls.slice(1).every((request) => request.url.search === '?refresh=1')).toBe(
      true,
    );
    expect(catalogCalls.length).toBeGreaterThan(1);
    // The catalog already shown stays, marked as possibly out of date.
    expect(screen.getByText('openai/gpt-4o')).toBeInTheDocument();
    expect(screen.getByText(/may be out of date/)).toBeInTheDocument();
  });

  it('pushes one history entry per search, so Back undoes it', async () => {
    mockCatalog([
      makeModel({ id: 'openai/gpt-4o', name: 'GPT-4o' }),
      makeModel({ id: 'anthropic/claude', name: 'Claude', description: 'careful writer' }),
    ]);
    const { currentLocation, navigate } = renderRoute('/catalog');
    await screen.findByText('openai/gpt-4o');
    // Pasted, so the search is one edit: typed letter by letter on a loaded machine, a gap between
    // two letters can outlast the typing pause, and then the first letters are a search (and a
    // history entry) of their own, as they would be for a person who stopped typing there.
    await userEvent.click(screen.getByRole('searchbox', { name: 'Search models' }));
    await userEvent.paste('writer');
    await waitFor(() =>
      expect(new URLSearchParams(currentLocation().search).get('q')).toBe('writer'),
    );
    expect(visibleIds()).toEqual(['anthropic/claude']);

    act(() => navigate(-1));
    expect(currentLocation().search).toBe('');
    await waitFor(() => expect(visibleIds()).toHaveLength(2));
    expect(screen.getByRole('searchbox', { name: 'Search models' })).toHaveValue('');
  });

  it('gives the focus back to the row when Esc closes the detail panel', async () => {
    mockCatalog([makeModel({ id: 'openai/gpt-4o', name: 'GPT-4o' }), makeModel({ id: 'x/y' })]);
    renderRoute('/catalog');
    const opener = await screen.findByRole('button', { name: 'Details of GPT-4o' });
    await userEvent.click(opener);
    await screen.findByRole('dialog');
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await waitFor(() =>
      expect(screen.getByRole('button', { name: 'Details of GPT-4o' })).toHaveFocus(),
    );
  });

  it('reads a decimal comma as a decimal point, and says when From is above To', async () => {
    mockCatalog([
      makeModel({ id: 'a/cheap', prompt_price: '0.000001' }),
      makeModel({ id: 'b/mid', prompt_price: '0.000002' }),
      makeModel({ id: 'c/dear', prompt_price: '0.00002' }),
    ]);
    const { currentLocation } = renderRoute('/catalog');
    await screen.findByText('a/cheap');
    await userEvent.click(screen.getByRole('button', { name: /^Price/ }));
    await userEvent.type(screen.getByLabelText('From'), '1,5');
    // 1.5, not 15: only the $2 and $20 models remain.
    await waitFor(() => expect(visibleIds()).toEqual(['c/dear', 'b/mid']));
    await waitFor(() =>
      expect(new URLSearchParams(currentLocation().search).get('min')).toBe('1,5'),
    );

    await userEvent.clear(screen.getByLabelText('From'));
    await userEvent.type(screen.getByLabelText('From'), '20');
    await userEvent.type(screen.getByLabelText('To'), '5');
    // Said in the price panel, and in the empty list's explanation.
    const messages = await screen.findAllByText(/From \(\$20\) is above To \(\$5\)/);
    expect(messages.some((message) => message.closest('[role="alert"]') !== null)).toBe(true);
    expect(screen.getByText('No model matches').parentElement).toHaveTextContent(
      'no price is in this range',
    );
    await userEvent.click(screen.getByRole('button', { name: 'Swap From and To' }));
    // The fields settle once the router has rendered the swapped location (a transition, which
    // a loaded machine shows a moment after the click).
    await waitFor(() => expect(screen.getByLabelText('From')).toHaveValue('5'));
    await waitFor(() => expect(screen.getByLabelText('To')).toHaveValue('20'));
    await waitFor(() => expect(visibleIds()).toEqual(['c/dear']));
  });

  it('names the Price and Parameters panels, as every dialog needs', async () => {
    mockCatalog([makeModel({ id: 'a/cheap' })]);
    renderRoute('/catalog');
    await screen.findByText('a/cheap');
    await userEvent.click(screen.getByRole('button', { name: /^Price/ }));
    expect(await screen.findByRole('dialog', { name: 'Filter by price' })).toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    await userEvent.click(screen.getByRole('button', { name: /^Parameters/ }));
    expect(await screen.findByRole('dialog', { name: 'Filter by parameters' })).toBeInTheDocument();
  });

  it('refuses an ambiguous price with a message instead of guessing', async () => {
    mockCatalog([makeModel({ id: 'a/cheap' })]);
    renderRoute('/catalog');
    await screen.findByText('a/cheap');
    await userEvent.click(screen.getByRole('button', { name: /^Price/ }));
    await userEvent.type(screen.getByLabelText('To'), '1,000');
    expect(await screen.findByText(/could mean 1000 or 1\.000/)).toBeInTheDocument();
    expect(screen.getByLabelText('To')).toHaveAttribute('aria-invalid', 'true');
  });

  it('keeps a "/" typed into a field: the shortcut only focuses the search from elsewhere', async () => {
    mockCatalog([makeModel({ id: 'a/cheap' })]);
    renderRoute('/catalog');
    await screen.findByText('a/cheap');
    await userEvent.click(screen.getByRole('button', { name: /^Price/ }));
    const from = screen.getByLabelText('From');
    await userEvent.type(from, '1/2');
    expect(from).toHaveValue('1/2');
    expect(from).toHaveFocus();
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByLabelText('From')).not.toBeInTheDocument());
    (document.activeElement as HTMLElement | null)?.blur();
    await userEvent.keyboard('/');
    expect(screen.getByRole('searchbox', { name: 'Search models' })).toHaveFocus();
    expect(screen.getByRole('searchbox', { name: 'Search models' })).toHaveValue('');
  });

  it('ignores filter values no model has, and says which', async () => {
    mockCatalog([
      makeModel({ id: 'openai/gpt-4o' }),
      makeModel({ id: 'meta/llama:free', variant: 'free' }),
    ]);
    renderRoute('/catalog?in=foo&variant=nope&author=openai');
    await screen.findByText('openai/gpt-4o');
    expect(visibleIds()).toEqual(['openai/gpt-4o']);
    const note = screen.getByText(/Ignored from the link/);
    expect(note).toHaveTextContent('in=foo');
    expect(note).toHaveTextContent('variant=nope');
    expect(note).not.toHaveTextContent('author');
    expect(screen.getByRole('button', { name: 'Clear filters (1)' })).toBeInTheDocument();
  });

  it('shows an empty state when nothing matches, and clearing brings the rows back', async () => {
    mockCatalog([makeModel({ id: 'openai/gpt-4o' })]);
    renderRoute('/catalog?q=zzz');
    expect(await screen.findByText('No model matches')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'clear every filter' }));
    expect(await screen.findByText('openai/gpt-4o')).toBeInTheDocument();
  });
});
