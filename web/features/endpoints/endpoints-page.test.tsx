import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ChecksReport } from '../../../contract/workbench-api';
import { makeCheck, makeChecksReport, reachableHealth } from '../../test/fixtures';
import {
  jsonResponse,
  mockPageApi,
  renderRoute,
  type RecordedRequest,
} from '../../test/render-app';
import { mergeReports, paidChecksCost, reportToJson, reportToMarkdown } from './checks-report';

function mockEndpoints(
  onPost: (request: RecordedRequest) => unknown = () => makeChecksReport(true),
) {
  return mockPageApi({
    'GET /api/checks': () => makeChecksReport(false),
    'POST /api/checks': onPost,
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
    expect(paidChecksCost(makeChecksReport(false).results)).toEqual({ count: 1, cost: 0.00002 });
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
    expect(
      screen.getByText(/1 inference call to .*, about \$0\.00002 in total/),
    ).toBeInTheDocument();
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

  it('says the inference checks cost nothing when they call a free model', async () => {
    mockPageApi({
      'GET /api/checks': () => ({
        ...makeChecksReport(false),
        model: { id: 'sim/chat-standard:free', free: true },
        results: makeChecksReport(false).results.map((result) =>
          result.paid ? { ...result, estimated_cost_usd: 0 } : result,
        ),
      }),
    });
    renderRoute('/endpoints');
    await screen.findByRole('table', { name: 'Endpoint checks' });
    expect(screen.getByRole('checkbox', { name: /^Include inference checks/ })).toBeInTheDocument();
    expect(
      screen.getByText(/1 call to sim\/chat-standard:free, a free model: \$0/),
    ).toBeInTheDocument();
    expect(screen.queryByText(/Include paid checks/)).not.toBeInTheDocument();
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
