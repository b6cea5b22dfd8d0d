import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ChecksReport } from '../../../contract/workbench-api';
import type { EndpointStatsBucket } from '../../../contract/gateway';
import { formatDateTime } from '../../lib/format';
import {
  makeCatalog,
  makeCheck,
  makeChecksReport,
  makeModel,
  makeProviderEndpoint,
  reachableHealth,
} from '../../test/fixtures';
import {
  jsonResponse,
  mockPageApi,
  renderRoute,
  type RecordedRequest,
} from '../../test/render-app';
import { mergeReports, paidChecksCost, reportToJson, reportToMarkdown } from './checks-report';
import { availabilityPageSize, bucketLabel } from './components/availability-section';

function mockEndpoints(
  onPost: (request: RecordedRequest) => unknown = () => makeChecksReport(true),
) {
  return mockPageApi({
    'GET /api/checks': () => makeChecksReport(false),
    'POST /api/checks': onPost,
    'GET /api/catalog': () => ({ models: [], fetched_at: 1, skipped: 0 }),
  });
}

function rowOf(entry: string): HTMLElement {
  const table = screen.getByRole('table', { name: 'Endpoint checks' });
  const row = within(table).getByText(entry).closest('tr');
  if (!row) throw new Error(`no row for ${entry}`);
  return row;
}

describe('checks report helpers', () => {
  it('merges a re-run of one check into the report', () => {
    const before = makeChecksReport(false);
    const rerun: ChecksReport = {
      profile: 'demo-account',
      ran_at: 5,
      results: [makeCheck({ id: 'models', outcome: 'available', status: 200, ran_at: 5 })],
    };
    const merged = mergeReports(before, rerun);
    expect(merged.ran_at).toBe(5);
    expect(merged.results).toHaveLength(before.results.length);
    expect(merged.results[0]?.status).toBe(200);
    expect(merged.results[1]).toEqual(before.results[1]);
  });

  it('totals the paid checks', () => {
    expect(paidChecksCost(makeChecksReport(false).results)).toEqual({
      count: 1,
      cost: 0.00002,
      entries: ['Chat completions'],
    });
  });

  it('exports Markdown and JSON with the masked key only', () => {
    const report = makeChecksReport(true);
    const markdown = reportToMarkdown(report, {
      maskedKey: 'sk-gw-…a1b2',
      gatewayBaseUrl: 'http://gw',
    });
    expect(markdown).toContain('Key (masked): `sk-gw-…a1b2`');
    expect(markdown).toContain(
      '| Gemini generateContent | POST | `/v1beta/models/{model}:generateContent` | Bearer on Gemini form | Expected error | 401 |',
    );
    expect(markdown).toContain('Generation records (planned)');
    expect(markdown).not.toMatch(/sk-[A-Za-z0-9_-]{20,}/);
    const json = JSON.parse(reportToJson(report, { maskedKey: 'sk-gw-…a1b2' })) as {
      masked_key: string;
      results: unknown[];
    };
    expect(json.masked_key).toBe('sk-gw-…a1b2');
    expect(json.results).toHaveLength(report.results.length);
  });

  it('escapes pipes in Markdown cells', () => {
    const report: ChecksReport = {
      profile: 'p',
      ran_at: null,
      results: [makeCheck({ id: 'x', explanation: 'a | b' })],
    };
    expect(reportToMarkdown(report, {})).toContain('a \\| b');
  });
});

describe('EndpointsPage', () => {
  it('shows the plan on load, then runs the free checks and shows each outcome', async () => {
    const requests = mockEndpoints();
    renderRoute('/endpoints');
    await screen.findByRole('table', { name: 'Endpoint checks' });
    expect(screen.getByText('Not run yet')).toBeInTheDocument();
    expect(within(rowOf('Model list')).getByText('Not run')).toBeInTheDocument();
    expect(within(rowOf('Generation records')).getByText('Planned')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Run checks' }));
    await waitFor(() =>
      expect(
        within(rowOf('Gemini generateContent')).getByText('Expected error'),
      ).toBeInTheDocument(),
    );
    const gemini = rowOf('Gemini generateContent');
    expect(gemini).toHaveTextContent('401');
    expect(gemini).toHaveTextContent('0123456789abcdef-AMS');
    expect(gemini).toHaveTextContent('42 ms');
    expect(within(rowOf('Model list')).getByText('Available')).toBeInTheDocument();
    // A 404 says so in plain words, not "Missing".
    expect(within(rowOf('Generation records')).getByText('Not served')).toBeInTheDocument();
    expect(screen.getByText(/^Last run /)).toBeInTheDocument();

    const post = requests.find((request) => request.method === 'POST');
    expect(post?.body).toEqual({ profile: 'demo-account', include_paid: false });
    expect(post?.headers.get('Content-Type')).toBe('application/json');
  });

  it('runs paid checks only after the explicit choice, showing their total cost', async () => {
    const requests = mockEndpoints();
    renderRoute('/endpoints');
    await screen.findByRole('table', { name: 'Endpoint checks' });
    const checkbox = screen.getByRole('checkbox', { name: /Include paid checks/ });
    expect(screen.getByText('(Chat completions: about $0.00002 in total)')).toBeInTheDocument();
    expect(
      within(rowOf('Chat completions')).getByRole('button', { name: /^Run Chat completions/ }),
    ).toBeDisabled();
    await userEvent.click(checkbox);
    await userEvent.click(screen.getByRole('button', { name: 'Run checks' }));
    await waitFor(() => expect(requests.some((request) => request.method === 'POST')).toBe(true));
    expect(requests.find((request) => request.method === 'POST')?.body).toEqual({
      profile: 'demo-account',
      include_paid: true,
    });
  });

  it('re-runs one row with only its id and keeps the others', async () => {
    const requests = mockEndpoints((request) => {
      const body = request.body as { only?: string[] };
      return {
        profile: 'demo-account',
        ran_at: 1_760_000_100_000,
        results: [
          makeCheck({
            id: body.only?.[0] ?? 'models',
            outcome: 'failing',
            status: 500,
            explanation: 'The catalog failed.',
            ran_at: 1_760_000_100_000,
          }),
        ],
      };
    });
    renderRoute('/endpoints');
    await screen.findByRole('table', { name: 'Endpoint checks' });
    await userEvent.click(
      within(rowOf('Model list')).getByRole('button', { name: /^Run Model list/ }),
    );
    await waitFor(() =>
      expect(within(rowOf('Model list')).getByText('Failing')).toBeInTheDocument(),
    );
    expect(requests.find((request) => request.method === 'POST')?.body).toEqual({
      profile: 'demo-account',
      include_paid: false,
      only: ['models'],
    });
    expect(within(rowOf('Balance')).getByText('Not run')).toBeInTheDocument();
    // A row that ran offers to run again; one that never ran just to run.
    expect(
      within(rowOf('Model list')).getByRole('button', { name: /^Re-run Model list/ }),
    ).toBeEnabled();
    expect(within(rowOf('Balance')).getByRole('button', { name: /^Run Balance/ })).toBeEnabled();
  });

  it('says a planned entry is planned once, not in the badge and twice in the text', async () => {
    mockEndpoints(() => ({
      ...makeChecksReport(true),
      results: [
        makeCheck({
          id: 'responses',
          entry: 'Responses form',
          planned: true,
          outcome: 'placeholder',
          status: 501,
          ran_at: 1,
          explanation:
            'The route exists but answers 501. Not served by this gateway yet: the entry is planned, with no promise it will work in production.',
        }),
      ],
    }));
    renderRoute('/endpoints');
    await screen.findByRole('table', { name: 'Endpoint checks' });
    await userEvent.click(screen.getByRole('button', { name: 'Run checks' }));
    const row = await waitFor(() => {
      const found = rowOf('Responses form');
      expect(found).toHaveTextContent('Placeholder');
      return found;
    });
    expect(within(row).getByText('Planned')).toBeInTheDocument();
    // The explanation says it (the BFF wrote it once); the row adds no second sentence.
    expect(row).not.toHaveTextContent('Planned entry');
  });

  it('runs inference on a free model by default, asking nothing', async () => {
    const requests = mockPageApi({
      'GET /api/checks': () => ({
        ...makeChecksReport(false),
        model: { id: 'sim/chat-standard:free', free: true },
        results: makeChecksReport(false).results.map((result) =>
          result.paid ? { ...result, paid: false, inference: true, estimated_cost_usd: 0 } : result,
        ),
      }),
      'POST /api/checks': () => makeChecksReport(true),
    });
    renderRoute('/endpoints');
    await screen.findByRole('table', { name: 'Endpoint checks' });
    // Nothing costs money: no choice to make.
    expect(screen.queryByRole('checkbox')).not.toBeInTheDocument();
    expect(
      screen.getByText('Every check is free and runs. Results show masked keys only.'),
    ).toBeVisible();
    expect(within(rowOf('Chat completions')).getByText('Inference · free model')).toBeVisible();
    expect(
      within(rowOf('Chat completions')).getByRole('button', { name: /^Run Chat completions/ }),
    ).toBeEnabled();
    await userEvent.click(screen.getByRole('button', { name: 'Run checks' }));
    await waitFor(() => expect(requests.some((request) => request.method === 'POST')).toBe(true));
  });

  it('leads a refused key’s report with one verdict, and groups identical explanations', async () => {
    const refusal =
      'HTTP 402: the gateway refuses this key (key disabled, as its GET /v1/key says). Enable on the Keys page, then run the checks again.';
    const outage =
      'HTTP 503: a fault of the gateway or a provider. Keep the trace id (cf-ray) as evidence and retry later.';
    const refused = (id: string, entry: string) =>
      makeCheck({
        id,
        entry,
        outcome: 'payment_required',
        status: 402,
        explanation: refusal,
        ran_at: 1,
      });
    const failing = (id: string, entry: string) =>
      makeCheck({ id, entry, outcome: 'failing', status: 503, explanation: outage, ran_at: 1 });
    mockPageApi({
      'GET /api/checks': () => ({
        profile: 'demo-account',
        ran_at: 1,
        key_refusal: { state: 'disabled', summary: 'key disabled', action: 'Enable' },
        results: [
          refused('chat', 'Chat completions'),
          refused('messages', 'Messages form (Anthropic, x-api-key)'),
          refused('gemini', 'Gemini form (x-goog-api-key)'),
          failing('one', 'Balance'),
          failing('two', 'Model list'),
        ],
      }),
    });
    renderRoute('/endpoints');
    await screen.findByRole('table', { name: 'Endpoint checks' });
    const verdict = screen.getByText(/checks refused/).closest('p')!;
    expect(verdict).toHaveTextContent(/^3 checks refused: key disabled → Enable/);
    expect(within(verdict).getByRole('link', { name: 'Enable' })).toHaveAttribute(
      'href',
      '/keys?profile=demo-account',
    );
    // The 60-word paragraph is not said three times; the rows point to the verdict.
    expect(screen.queryByText(refusal)).not.toBeInTheDocument();
    expect(
      within(rowOf('Chat completions')).getAllByText('Refused: key disabled (see above).'),
    ).not.toHaveLength(0);
    // Other identical failures: written out once, the others name the first.
    expect(within(rowOf('Balance')).getAllByText(outage)).not.toHaveLength(0);
    expect(within(rowOf('Model list')).getAllByText('Same as “Balance”.')).not.toHaveLength(0);
  });

  it('claims no $0 when the model the checks would call is unknown', async () => {
    mockPageApi({
      'GET /api/checks': () => ({
        ...makeChecksReport(false),
        model: null,
        results: makeChecksReport(false).results.map((result) =>
          result.paid ? { ...result, estimated_cost_usd: 0 } : result,
        ),
      }),
    });
    renderRoute('/endpoints');
    await screen.findByRole('table', { name: 'Endpoint checks' });
    const checkbox = screen.getByRole('checkbox', { name: /^Include paid checks/ });
    expect(checkbox).toHaveAccessibleName(/the model and the cost are unknown/);
    expect(checkbox).not.toHaveAccessibleName(/\$0/);
  });

  it('says when results come from a run the gateway did not answer, and that they may be stale', async () => {
    const ranAt = 1_760_000_000_000;
    mockPageApi({
      'GET /api/checks': () => ({
        ...makeChecksReport(true),
        results: makeChecksReport(true).results.map((result) => ({
          ...result,
          outcome: 'failing',
          status: null,
          explanation: 'Cannot connect to the gateway (stage: connect)',
          gateway_unreachable: true,
          ran_at: ranAt,
        })),
      }),
      'GET /api/health': () => reachableHealth,
    });
    renderRoute('/endpoints');
    await screen.findByRole('table', { name: 'Endpoint checks' });
    const note = await screen.findByText(/The gateway did not answer during the run at/);
    expect(note.closest('p')).toHaveTextContent(
      /could not connect.*The gateway answers again: these results may be stale\. Run checks to refresh them\./,
    );
  });

  it('keeps the endpoint, its outcome and its run button on a phone, folding the rest', async () => {
    mockEndpoints();
    renderRoute('/endpoints');
    const table = await screen.findByRole('table', { name: 'Endpoint checks' });
    const headers = within(table).getAllByRole('columnheader');
    const hiddenOnPhones = headers.filter((header) => header.classList.contains('hidden'));
    expect(hiddenOnPhones.map((header) => header.textContent)).toEqual([
      'HTTP',
      'Latency',
      'Auth',
      'cf-ray',
      'Explanation',
    ]);
    expect(table.className).not.toMatch(/(^| )min-w-/);
  });

  it('says what failed when a run fails', async () => {
    mockEndpoints(() =>
      jsonResponse(502, {
        error: {
          message: 'The gateway is unreachable.',
          stage: 'connect',
          advice: 'Start the gateway, then run the checks again.',
        },
      }),
    );
    renderRoute('/endpoints');
    await screen.findByRole('table', { name: 'Endpoint checks' });
    await userEvent.click(screen.getByRole('button', { name: 'Run checks' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Running the checks failed.');
    expect(alert).toHaveTextContent('connecting to the gateway');
    expect(alert).toHaveTextContent('Start the gateway, then run the checks again.');
  });

  it('says how to add a key when the server holds none, instead of asking to choose one', async () => {
    mockPageApi({
      'GET /api/profiles': () => ({ profiles: [] }),
      'GET /api/health': () => ({ ...reachableHealth, mode: 'external' }),
    });
    renderRoute('/endpoints');
    // The page's own notice, not the header's profile chooser, which shows the same words.
    expect(
      await within(screen.getByRole('main')).findByText('No key profiles'),
    ).toBeInTheDocument();
    expect(screen.queryByText(/Choose a key in the header/)).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Run checks' })).toBeDisabled();
  });

  it('hides nothing that takes focus while the Export menu is open', async () => {
    mockEndpoints();
    renderRoute('/endpoints');
    await screen.findByRole('table', { name: 'Endpoint checks' });
    await userEvent.click(screen.getByRole('button', { name: /^Export results/ }));
    expect(await screen.findByRole('menu')).toBeInTheDocument();
    // axe's aria-hidden-focus: a focusable control inside aria-hidden is reached by Tab yet
    // silent to a screen reader. The page's controls stay exposed while the menu is open.
    const run = screen.getByRole('button', { name: 'Run checks', hidden: true });
    expect(run.closest('[aria-hidden="true"]')).toBeNull();
  });
});

function bucket(start: number, requests: number, successes: number): EndpointStatsBucket {
  return {
    start,
    requests,
    successes,
    failures: {
      timeout: requests - successes,
      server_error: 0,
      rate_limited: 0,
      connection: 0,
      other: 0,
    },
    uptime: requests === 0 ? null : successes / requests,
    latency_ms_p50: requests === 0 ? null : 900,
    latency_ms_p95: null,
    ttft_ms_p50: null,
    output_tokens_per_second: null,
  };
}

const hour = 1_760_000_400 - (1_760_000_400 % 3600);

/**
 * The checks call sim/echo; its two providers, one with traffic and one without. The catalog
 * also lists acme/chat (first there), served by one provider that failed a fifth of the time.
 */
function mockAvailability() {
  return mockPageApi({
    'GET /api/checks': () => ({
      ...makeChecksReport(false),
      model: { id: 'sim/echo', free: true },
    }),
    'GET /api/catalog': () => ({
      models: [makeModel({ id: 'acme/chat' }), makeModel({ id: 'sim/echo' })],
      fetched_at: 1,
      skipped: 0,
    }),
    'GET /api/catalog/endpoints': (request) => {
      const model = request.url.searchParams.get('model');
      return {
        model,
        endpoints:
          model === 'sim/echo'
            ? [
                makeProviderEndpoint({
                  provider: 'primary',
                  order: 1,
                  uptime_last_30m: 118 / 120,
                  latency_ms_p50: 850,
                  ttft_ms_p50: 210,
                }),
                makeProviderEndpoint({
                  provider: 'backup',
                  order: 2,
                  status: 'cooling_down',
                  retry_after: 25,
                }),
              ]
            : [
                makeProviderEndpoint({
                  provider: 'acme-cloud',
                  order: 1,
                  uptime_last_30m: 0.8,
                  latency_ms_p50: 400,
                }),
              ],
        fetched_at: Date.now(),
        cf_ray: null,
        skipped: 0,
      };
    },
    'GET /api/catalog/endpoints/stats': (request) => {
      const model = request.url.searchParams.get('model');
      const window = request.url.searchParams.get('window') ?? '24h';
      const seconds = window === '7d' ? 21_600 : 3600;
      return {
        object: 'endpoint_stats',
        model,
        window,
        bucket_seconds: seconds,
        cf_ray: null,
        data:
          model === 'sim/echo'
            ? [
                {
                  provider: 'primary',
                  buckets: [bucket(hour, 120, 118), bucket(hour + seconds, 0, 0)],
                },
                { provider: 'backup', buckets: [] },
              ]
            : [{ provider: 'acme-cloud', buckets: [bucket(hour, 10, 8)] }],
      };
    },
  });
}

describe('EndpointsPage availability', () => {
  it('labels each bar with its hour, uptime and requests', () => {
    const time = formatDateTime(hour, 'seconds');
    expect(bucketLabel(bucket(hour, 120, 118), '24h')).toBe(
      `${time.slice(-5)}: 98.3% of 120 requests`,
    );
    expect(bucketLabel(bucket(hour, 1, 1), '7d')).toBe(`${time}: 100% of 1 request`);
    expect(bucketLabel(bucket(hour, 0, 0), '24h')).toBe(`${time.slice(-5)}: no traffic`);
  });

  it('shows each provider’s state, last 30 minutes and uptime bars for the model the checks call', async () => {
    const requests = mockAvailability();
    renderRoute('/endpoints');
    const list = await screen.findByRole('list', { name: 'Provider availability of sim/echo' });
    const [primary, backup] = within(list).getAllByRole('listitem', {
      name: (_name, element) => element.parentElement === list,
    });
    if (!primary || !backup) throw new Error('two providers expected');
    expect(primary).toHaveTextContent('Healthy');
    expect(primary).toHaveTextContent(
      'Last 30 min: 98.3% uptime · latency p50 850 ms · time to first token p50 210 ms',
    );
    const day = await within(primary).findByRole('list', {
      name: 'Uptime of primary, last 24 hours',
    });
    const bars = within(day).getAllByRole('listitem');
    expect(bars).toHaveLength(2);
    expect(bars[0]).toHaveTextContent(
      `${formatDateTime(hour, 'seconds').slice(-5)}: 98.3% of 120 requests`,
    );
    expect(bars[1]).toHaveTextContent(/: no traffic$/);
    expect(
      within(primary).getByRole('list', { name: 'Uptime of primary, last 7 days' }),
    ).toBeInTheDocument();
    // Without traffic, it says so instead of 0%.
    expect(backup).toHaveTextContent('Cooling down · retry in 25 s');
    expect(backup).toHaveTextContent('Last 30 min: No traffic in the last 30 minutes');
    expect(backup).not.toHaveTextContent('0%');
    expect(backup).toHaveTextContent('No traffic recorded in the last 24 hours');
    const windows = requests
      .filter((request) => request.url.pathname === '/api/catalog/endpoints/stats')
      .map((request) => request.url.searchParams.get('window'));
    expect(windows.sort()).toEqual(['24h', '7d']);
    // The probes stay, as the check run.
    expect(screen.getByRole('button', { name: 'Run checks' })).toBeInTheDocument();
  });

  it('lists every catalog model, collapsed but for the checked one, and loads a series on opening', async () => {
    const requests = mockAvailability();
    renderRoute('/endpoints');
    const section = await screen.findByRole('region', { name: 'Provider availability' });
    const open = await within(section).findByRole('button', { name: 'sim/echo' });
    const closed = await within(section).findByRole('button', { name: 'acme/chat' });
    // The model the checks call leads, open; the catalog's others follow, closed.
    const buttons = Array.from(section.querySelectorAll('button[aria-expanded]'));
    expect(buttons.map((button) => button.textContent)).toEqual(['▾sim/echo', '▸acme/chat']);
    expect(open).toHaveAttribute('aria-expanded', 'true');
    expect(closed).toHaveAttribute('aria-expanded', 'false');
    // Closed, a row still says each provider's uptime and breaker state.
    const summary = await within(section).findByRole('list', {
      name: 'Providers of acme/chat, last 30 minutes',
    });
    expect(summary).toHaveTextContent('acme-cloud80%●Healthy');
    const echoSummary = within(section).getByRole('list', {
      name: 'Providers of sim/echo, last 30 minutes',
    });
    expect(echoSummary).toHaveTextContent('primary98.3%●Healthy');
    expect(echoSummary).toHaveTextContent('backupno traffic●Cooling down');
    const statsOf = (model: string) =>
      requests.filter(
        (request) =>
          request.url.pathname === '/api/catalog/endpoints/stats' &&
          request.url.searchParams.get('model') === model,
      );
    await within(section).findByRole('list', { name: 'Uptime of primary, last 24 hours' });
    expect(statsOf('acme/chat')).toHaveLength(0);

    await userEvent.click(closed);
    expect(closed).toHaveAttribute('aria-expanded', 'true');
    const bars = await within(section).findByRole('list', {
      name: 'Uptime of acme-cloud, last 24 hours',
    });
    expect(within(bars).getByRole('listitem')).toHaveTextContent('80% of 10 requests');
    const detail = within(section).getByRole('list', {
      name: 'Provider availability of acme/chat',
    });
    expect(detail).toHaveTextContent('80% uptime · latency p50 400 ms');
    expect(
      statsOf('acme/chat')
        .map((request) => request.url.searchParams.get('window'))
        .sort(),
    ).toEqual(['24h', '7d']);

    await userEvent.click(open);
    expect(
      within(section).queryByRole('list', { name: 'Uptime of primary, last 24 hours' }),
    ).not.toBeInTheDocument();
  });

  it('shows a large catalog a page at a time, and finds a model by name', async () => {
    const models = makeCatalog(availabilityPageSize + 5);
    const requests = mockPageApi({
      'GET /api/checks': () => makeChecksReport(false),
      'GET /api/catalog': () => ({ models, fetched_at: 1, skipped: 0 }),
      'GET /api/catalog/endpoints': (request) => ({
        model: request.url.searchParams.get('model'),
        endpoints: [makeProviderEndpoint({ provider: 'simulated', order: 1 })],
        fetched_at: Date.now(),
        cf_ray: null,
        skipped: 0,
      }),
    });
    renderRoute('/endpoints');
    const section = await screen.findByRole('region', { name: 'Provider availability' });
    const rows = () => within(section).getAllByRole('button', { expanded: false });
    await waitFor(() => expect(rows()).toHaveLength(availabilityPageSize));
    expect(section).toHaveTextContent(
      `Showing ${availabilityPageSize} of ${models.length} models.`,
    );
    // Only the rows on screen ask for their providers.
    await waitFor(() =>
      expect(
        requests.filter((request) => request.url.pathname === '/api/catalog/endpoints'),
      ).toHaveLength(availabilityPageSize),
    );
    await userEvent.click(within(section).getByRole('button', { name: 'Show 5 more' }));
    expect(rows()).toHaveLength(models.length);

    const last = models[models.length - 1]?.id ?? '';
    await userEvent.type(within(section).getByRole('searchbox', { name: 'Find a model' }), last);
    expect(rows().map((row) => row.textContent)).toEqual([`▸${last}`]);
    await userEvent.clear(within(section).getByRole('searchbox', { name: 'Find a model' }));
    await userEvent.type(
      within(section).getByRole('searchbox', { name: 'Find a model' }),
      'no-such-model',
    );
    expect(section).toHaveTextContent('No model matches “no-such-model”.');
  });

  it('keeps the checked model’s row when the catalog fails, and says the catalog failed', async () => {
    mockPageApi({
      'GET /api/checks': () => ({
        ...makeChecksReport(false),
        model: { id: 'sim/echo', free: true },
      }),
      'GET /api/catalog': () =>
        jsonResponse(502, { error: { message: 'The gateway failed.', stage: 'gateway' } }),
      'GET /api/catalog/endpoints': () => ({
        model: 'sim/echo',
        endpoints: [makeProviderEndpoint({ provider: 'primary', uptime_last_30m: 1 })],
        fetched_at: Date.now(),
        cf_ray: null,
        skipped: 0,
      }),
      'GET /api/catalog/endpoints/stats': (request) => ({
        object: 'endpoint_stats',
        model: 'sim/echo',
        window: request.url.searchParams.get('window'),
        bucket_seconds: 3600,
        cf_ray: null,
        data: [],
      }),
    });
    renderRoute('/endpoints');
    const section = await screen.findByRole('region', { name: 'Provider availability' });
    expect(await within(section).findByRole('alert')).toHaveTextContent('Loading the catalog');
    expect(within(section).getByRole('button', { name: 'sim/echo' })).toBeInTheDocument();
  });
});
