import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import type {
  ActivityRequest,
  ActivityView,
  GenerationsPage,
} from '../../../contract/workbench-api';
import {
  jsonResponse,
  mockPageApi,
  renderRoute,
  type MockHandler,
  type RecordedRequest,
} from '../../test/render-app';
import { childKeysAnswer, childKeysPath, nightly, sharedBot } from '../../test/child-keys.test-kit';
import { dayNumberOf, isoDateOf } from '../../lib/utc-days';
import { captureDownloads } from '../../test/downloads';
import { makeActivityRequest } from '../../test/fixtures';

// jsdom has no canvas: stand in for uPlot, recording what it was asked to draw.
const plots = vi.hoisted(() => [] as Array<{ data: number[][]; options: { hooks: unknown } }>);
vi.mock('uplot', () => {
  class FakePlot {
    static paths = { bars: () => () => null };
    cursor: { idx: number | null } = { idx: null };
    bbox = { left: 0, top: 0, width: 600, height: 200 };
    constructor(
      readonly options: { hooks: { setCursor: Array<(plot: FakePlot) => void> } },
      readonly data: number[][],
    ) {
      plots.push(this as never);
    }
    setSize() {}
    destroy() {}
    valToPos(value: number) {
      return value * 10;
    }
    setCursor({ left }: { left: number }) {
      this.cursor.idx = Math.round(left / 10);
      for (const hook of this.options.hooks.setCursor) hook(this);
    }
  }
  return { default: FakePlot };
});

const today = isoDateOf(dayNumberOf(Date.now()));
const yesterday = isoDateOf(dayNumberOf(Date.now()) - 1);
const nowSeconds = Math.floor(Date.now() / 1000);

function request(index: number, overrides: Partial<ActivityRequest> = {}): ActivityRequest {
  return makeActivityRequest(index, nowSeconds - index * 60, overrides);
}

function activity(days: number, withRequests = true): ActivityView {
  const first = dayNumberOf(Date.now()) - days + 1;
  const data = Array.from({ length: days }, (_, index) => {
    const date = isoDateOf(first + index);
    const models =
      withRequests && date === today
        ? [
            {
              model: 'sim/chat-standard',
              requests: 2,
              prompt_tokens: 24,
              completion_tokens: 80,
              cost_usd: 0.000264,
            },
            {
              model: 'sim/echo-mini',
              requests: 1,
              prompt_tokens: 5,
              completion_tokens: 7,
              cost_usd: 3.3e-7,
            },
          ]
        : withRequests && date === yesterday
          ? [
              {
                model: 'sim/chat-standard',
                requests: 1,
                prompt_tokens: 1,
                completion_tokens: 1,
                cost_usd: 0.1,
              },
            ]
          : [];
    const sum = (field: 'requests' | 'prompt_tokens' | 'completion_tokens' | 'cost_usd') =>
      models.reduce((total, entry) => total + entry[field], 0);
    return {
      date,
      requests: sum('requests'),
      prompt_tokens: sum('prompt_tokens'),
      completion_tokens: sum('completion_tokens'),
      cost_usd: sum('cost_usd'),
      models,
    };
  });
  const sum = (field: 'requests' | 'prompt_tokens' | 'completion_tokens' | 'cost_usd') =>
    data.reduce((total, entry) => total + entry[field], 0);
  return {
    profile: 'demo-account',
    days,
    from: data[0]!.date,
    to: today,
    data,
    totals: {
      requests: sum('requests'),
      prompt_tokens: sum('prompt_tokens'),
      completion_tokens: sum('completion_tokens'),
      cost_usd: sum('cost_usd'),
    },
    fetched_at: Date.now(),
  };
}

function page(rows: ActivityRequest[], nextCursor: string | null = null): GenerationsPage {
  return { profile: 'demo-account', data: rows, next_cursor: nextCursor, fetched_at: Date.now() };
}

function mockActivity(
  options: {
    withRequests?: boolean;
    pages?: GenerationsPage[];
    handlers?: Record<string, MockHandler>;
  } = {},
) {
  const withRequests = options.withRequests ?? true;
  const pages = options.pages ?? [
    page(
      withRequests ? [request(1), request(2, { cost_usd: 3.3e-7, model: 'sim/echo-mini' })] : [],
    ),
  ];
  return mockPageApi({
    'GET /api/activity': (call: RecordedRequest) =>
      activity(Number(call.url.searchParams.get('days')), withRequests),
    'GET /api/generations': (call: RecordedRequest) => {
      const cursor = call.url.searchParams.get('cursor');
      return cursor ? pages[Number(cursor)] : pages[0];
    },
    ...options.handlers,
  });
}

/** Waits for the charts (loaded on demand: allow for a busy run) and focuses the spend chart. */
async function focusSpendChart() {
  const chart = await screen.findByRole(
    'group',
    { name: /^Spend per day, by model/ },
    { timeout: 5000 },
  );
  await waitFor(() => expect(plots).toHaveLength(2));
  chart.focus();
}

const calls = (requests: RecordedRequest[], path: string) =>
  requests.filter((entry) => entry.url.pathname === path);

beforeEach(() => {
  plots.length = 0;
});

// jsdom lays nothing out: give the scroll box a viewport and each row a height, as a browser
// would, so the virtualiser renders what is in view.
const sizes = { clientHeight: 560, clientWidth: 1024, offsetHeight: 44, offsetWidth: 1024 };
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

describe('the Activity page', () => {
  it('lists the agent sessions and narrows the requests to one', async () => {
    const session = (id: string, requests: number, cost: number) => ({
      session_id: id,
      requests,
      started_at: nowSeconds - 600,
      ended_at: nowSeconds - 75,
      duration_seconds: 525,
      prompt_tokens: 1_200 * requests,
      completion_tokens: 300,
      cache_read_tokens: 900,
      cache_hits: requests - 1,
      cost_usd: cost,
    });
    const requests = mockActivity({
      handlers: {
        'GET /api/activity/sessions': () => ({
          profile: 'demo-account',
          data: [session('cc-second', 2, 0.0004), session('cc-first', 3, 0.0123456)],
          fetched_at: Date.now(),
        }),
      },
    });
    renderRoute('/activity');
    const table = await screen.findByRole('table', { name: 'Agent sessions' }, { timeout: 5000 });
    const [, second, first] = within(table).getAllByRole('row');
    expect(second).toHaveTextContent('cc-second');
    expect(first).toHaveTextContent('cc-first');
    expect(first).toHaveTextContent('3');
    expect(first).toHaveTextContent('8 min 45 s');
    expect(first).toHaveTextContent('3,600 / 300');
    expect(first).toHaveTextContent('$0.0123456');

    await userEvent.click(
      within(first!).getByRole('button', { name: 'Requests of session cc-first' }),
    );
    await waitFor(() =>
      expect(calls(requests, '/api/generations').at(-1)?.url.searchParams.get('session_id')).toBe(
        'cc-first',
      ),
    );
    expect(
      screen.getByRole('heading', { name: 'Requests · session cc-first' }),
    ).toBeInTheDocument();
    expect(calls(requests, '/api/activity/sessions')[0]?.url.searchParams.get('days')).toBe('30');
  });

  it('lists the key’s batches with their progress and cost so far', async () => {
    mockActivity({
      handlers: {
        'GET /api/activity/batches': () => ({
          profile: 'demo-account',
          data: [
            {
              id: 'batch_running',
              endpoint: '/v1/chat/completions',
              status: 'in_progress',
              total: 1_000,
              completed: 380,
              failed: 20,
              cost_usd: 0.0042,
              created_at: nowSeconds - 60,
            },
          ],
          fetched_at: Date.now(),
        }),
      },
    });
    renderRoute('/activity');
    const table = await screen.findByRole('table', { name: 'Batches' }, { timeout: 5000 });
    const [, row] = within(table).getAllByRole('row');
    expect(row).toHaveTextContent('batch_running');
    expect(row).toHaveTextContent('in progress');
    expect(row).toHaveTextContent('400 of 1,000 (20 failed)');
    expect(row).toHaveTextContent('$0.0042');
    const bar = within(row!).getByRole('progressbar', { name: 'Progress of batch batch_running' });
    expect(bar).toHaveAttribute('value', '400');
    expect(bar).toHaveAttribute('max', '1000');
  });

  it('shows the requests with cost and cf-ray, the totals and the charts, from the chosen profile', async () => {
    const requests = mockActivity();
    renderRoute('/activity');
    expect(
      within(await screen.findByRole('navigation', { name: 'Main' })).getByRole('link', {
        name: 'Activity',
      }),
    ).toHaveAttribute('href', '/activity');
    expect(await screen.findByRole('heading', { name: 'Activity', level: 1 })).toBeInTheDocument();

    const table = await screen.findByRole('table', { name: 'Requests' }, { timeout: 5000 });
    const first = within(table).getAllByRole('row')[1]!;
    expect(first).toHaveTextContent('0000000000000001-AMS');
    expect(first).toHaveTextContent('$0.000132');
    expect(within(table).getAllByRole('row')[2]).toHaveTextContent('$0.00000033');
    expect(
      within(first).getAllByRole('button', { name: 'Copy cf-ray 0000000000000001-AMS' }).length,
    ).toBeGreaterThan(0);

    // Totals: exact, over 30 days by default.
    const totals = screen.getByRole('region', { name: /Totals for/ });
    expect(within(totals).getByText('$0.10026433')).toBeInTheDocument();
    expect(within(totals).getByText('4')).toBeInTheDocument();

    // The charts (lazy) show the same total.
    expect(await screen.findByTestId('chart-spend-total', {}, { timeout: 5000 })).toHaveTextContent(
      '$0.10026433',
    );
    expect(screen.getByTestId('chart-requests-total')).toHaveTextContent('4');
    await waitFor(() => expect(plots).toHaveLength(2));
    // The spend chart stacks two models over 30 days: top layer first, ending today.
    expect(plots[0]!.data).toHaveLength(3);
    expect(plots[0]!.data[1]).toHaveLength(30);
    expect(plots[0]!.data[1]![29]).toBeCloseTo(0.00026433, 12);

    const [activityCall] = calls(requests, '/api/activity');
    expect(activityCall?.url.searchParams.get('profile')).toBe('demo-account');
    expect(activityCall?.url.searchParams.get('days')).toBe('30');
    const [listCall] = calls(requests, '/api/generations');
    expect(listCall?.url.searchParams.get('profile')).toBe('demo-account');
    expect(
      Number(listCall?.url.searchParams.get('to')) - Number(listCall?.url.searchParams.get('from')),
    ).toBe(30 * 86_400);
  });

  it('shows the id a request named, the model that answered, and why routes were skipped', async () => {
    const routed = request(2, {
      model: 'route/b',
      requested_model: 'team/coder',
      batch_id: 'batch_0123',
      provider: 'backup',
      attempts: [
        { provider: 'dear', status: 'over_max_price', latency_ms: 0, model: 'route/a' },
        { provider: 'down', status: 503, latency_ms: 4, model: 'route/a' },
        { provider: 'backup', status: 200, latency_ms: 790, model: 'route/b' },
      ],
    });
    mockActivity({ pages: [page([request(1), routed])] });
    const user = userEvent.setup();
    renderRoute('/activity');
    const table = await screen.findByRole('table', { name: 'Requests' }, { timeout: 5000 });
    const row = within(table).getAllByRole('row')[2]!;
    await user.click(
      within(row).getAllByRole('button', { name: 'Details of request 0000000000000002-AMS' })[0]!,
    );
    const panel = await screen.findByRole('dialog', { name: 'Request 0000000000000002-AMS' });
    const section = (name: string) => within(panel).getByRole('region', { name });
    const requested = within(section('Request')).getByText('Requested', { selector: 'dt' });
    expect(requested.nextElementSibling).toHaveTextContent('team/coder (answered by route/b)');
    const batch = within(section('Request')).getByText('Batch', { selector: 'dt' });
    expect(batch.nextElementSibling).toHaveTextContent('batch_0123');
    const attempts = within(section('Attempts')).getAllByRole('row');
    expect(attempts[0]).toHaveTextContent(/Model\s*Provider/);
    expect(attempts[1]).toHaveTextContent(/route\/a\s*dear\s*skipped: over provider.max_price/);
    expect(attempts[2]).toHaveTextContent(/route\/a\s*down\s*HTTP 503/);
    expect(attempts[3]).toHaveTextContent(/route\/b\s*backup\s*HTTP 200/);
  });

  it('opens a request’s whole record from its row: attempts, tokens, cost, settlement, translation', async () => {
    const retried = request(3, {
      model: 'sim/chat-reasoning',
      upstream_model: 'chat-reasoning-2',
      provider: 'primary',
      form: 'responses',
      prompt_tokens: 2000,
      completion_tokens: 40,
      reasoning_tokens: 25,
      cache_read_tokens: 1200,
      cache_write_tokens: 300,
      cache_write_1h_tokens: 100,
      cost_usd: 0.001234567,
      attempts: [
        { provider: 'backup', status: 'connect', latency_ms: 3 },
        { provider: 'primary', status: 200, latency_ms: 790 },
      ],
      settlement: 'pending',
      settled_at: null,
      usage_estimated: true,
      translation: { dropped: ['top_k'], adjusted: ['max_tokens=32000->8192'] },
    });
    mockActivity({ pages: [page([request(1), retried])] });
    const user = userEvent.setup();
    renderRoute('/activity');
    const table = await screen.findByRole('table', { name: 'Requests' }, { timeout: 5000 });
    const row = within(table).getAllByRole('row')[2]!;
    expect(row).toHaveTextContent('$0.001234567');
    await user.click(
      within(row).getAllByRole('button', { name: 'Details of request 0000000000000003-AMS' })[0]!,
    );

    const panel = await screen.findByRole('dialog', { name: 'Request 0000000000000003-AMS' });
    const section = (name: string) => within(panel).getByRole('region', { name });
    const field = (name: string, label: string) =>
      within(section(name)).getByText(label, { selector: 'dt' }).nextElementSibling;

    expect(field('Request', 'Form')).toHaveTextContent('Responses, streamed');
    expect(field('Request', 'Model')).toHaveTextContent('sim/chat-reasoning');
    expect(field('Request', 'Model')).toHaveTextContent('chat-reasoning-2');
    const attempts = within(section('Attempts')).getAllByRole('row');
    expect(attempts).toHaveLength(3);
    expect(attempts[1]).toHaveTextContent(/backup\s*connect\s*3\s*ms/);
    expect(attempts[2]).toHaveTextContent(/primary\s*HTTP 200\s*790\s*ms/);

    expect(field('Tokens', 'Input')).toHaveTextContent('2,000');
    expect(field('Tokens', 'Cache read')).toHaveTextContent('1,200');
    expect(field('Tokens', 'Cache write')).toHaveTextContent(
      '300 (200 for 5 minutes, 100 for an hour)',
    );
    expect(field('Tokens', 'Output')).toHaveTextContent('40');
    expect(field('Tokens', 'Reasoning')).toHaveTextContent('25');
    expect(field('Tokens', 'Usage')).toHaveTextContent(/^Estimated/);

    // The same money format as the row, exact to the nano-dollar.
    expect(field('Charge', 'Cost')).toHaveTextContent('$0.001234567');
    expect(field('Charge', 'Settlement')).toHaveTextContent(/^Pending/);

    expect(section('Translation')).toHaveTextContent('Dropped for this provider:top_k');
    expect(section('Translation')).toHaveTextContent('Adjusted:max_tokens=32000->8192');

    expect(section('Trace id')).toHaveTextContent('0000000000000003-AMS');
    await user.click(
      within(section('Trace id')).getByRole('button', { name: 'Copy cf-ray 0000000000000003-AMS' }),
    );
    expect(await navigator.clipboard.readText()).toBe('0000000000000003-AMS');

    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    // Focus goes back to the row's cf-ray, not to the page.
    expect(document.activeElement).toHaveAttribute('data-request-details', '0000000000000003-AMS');
  });

  it('finds a request by its trace id and opens it; closing returns focus to its row', async () => {
    const found = request(7, { created_at: nowSeconds - 200 * 86_400 });
    const requests = mockActivity({
      handlers: {
        'GET /api/generations': (call: RecordedRequest) =>
          call.url.searchParams.get('id') === found.id
            ? page([found])
            : call.url.searchParams.get('id')
              ? page([])
              : page([request(1)]),
      },
    });
    const user = userEvent.setup();
    renderRoute(`/activity?id=${found.id}`);
    // The link's request opens at once, whatever day it was made.
    const panel = await screen.findByRole(
      'dialog',
      { name: `Request ${found.id}` },
      { timeout: 5000 },
    );
    expect(panel).toBeVisible();
    const asked = calls(requests, '/api/generations').at(-1)!;
    expect(asked.url.searchParams.get('id')).toBe(found.id);
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(document.activeElement).toHaveAttribute('data-request-details', found.id);

    // A malformed id is named and never sent; an unknown one says why it may have no record.
    const search = screen.getByRole('searchbox', { name: 'Trace id (cf-ray)' });
    await user.clear(search);
    await user.type(search, 'abc{Enter}');
    expect(screen.getByText(/A trace id is 16 hexadecimal digits/)).toBeVisible();
    expect(search).toHaveAttribute('aria-invalid', 'true');
    await user.clear(search);
    await user.type(search, '00000000000000ff-AMS{Enter}');
    expect(
      await screen.findByText('No request 00000000000000ff-AMS among demo-account’s requests'),
    ).toBeVisible();
    expect(screen.getByText(/refused or failed before that/)).toBeVisible();
  });

  it('says a settled request with reported usage and no translation is just that', async () => {
    mockActivity();
    const user = userEvent.setup();
    renderRoute('/activity');
    const table = await screen.findByRole('table', { name: 'Requests' }, { timeout: 5000 });
    await user.click(
      within(table).getAllByRole('button', { name: 'Details of request 0000000000000001-AMS' })[0]!,
    );
    const panel = await screen.findByRole('dialog', { name: 'Request 0000000000000001-AMS' });
    expect(within(panel).getByRole('region', { name: 'Charge' })).toHaveTextContent(
      /Settled\s*\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/,
    );
    expect(within(panel).getByRole('region', { name: 'Tokens' })).toHaveTextContent(
      'reported by the provider',
    );
    expect(within(panel).getByRole('region', { name: 'Translation' })).toHaveTextContent(
      'Nothing was dropped or changed',
    );
  });

  it('shows a day’s exact figures when the chart is hovered or moved through with the keys', async () => {
    mockActivity();
    renderRoute('/activity');
    await focusSpendChart();
    await userEvent.keyboard('{End}');
    const tooltip = await screen.findByTestId('chart-tooltip');
    expect(tooltip).toHaveTextContent('sim/chat-standard$0.000264');
    expect(tooltip).toHaveTextContent('sim/echo-mini$0.00000033');
    expect(tooltip).toHaveTextContent('Total$0.00026433');
    await userEvent.keyboard('{ArrowLeft}');
    expect(screen.getByTestId('chart-tooltip')).toHaveTextContent('Total$0.10');
  });

  it('filters the table to a day chosen on the chart, and offers Yesterday in one click', async () => {
    const requests = mockActivity();
    const { currentLocation } = renderRoute('/activity');
    await focusSpendChart();
    await userEvent.keyboard('{End}{ArrowLeft}{Enter}');
    await waitFor(() =>
      expect(currentLocation().search).toBe(`?from=${yesterday}&to=${yesterday}`),
    );
    const listCall = calls(requests, '/api/generations').at(-1)!;
    expect(Number(listCall.url.searchParams.get('from'))).toBe(
      dayNumberOf(Date.now() - 86_400_000) * 86_400,
    );
    expect(screen.getByRole('button', { name: 'Yesterday' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );

    await userEvent.click(screen.getByRole('button', { name: '7 days' }));
    await waitFor(() => expect(currentLocation().search).toBe('?days=7'));
    await userEvent.click(screen.getByRole('button', { name: 'Yesterday' }));
    await waitFor(() =>
      expect(currentLocation().search).toBe(`?from=${yesterday}&to=${yesterday}`),
    );
  });

  it('exports a CSV whose total is the total of the page and of the chart', async () => {
    mockActivity();
    const saved = captureDownloads();
    renderRoute('/activity');
    const button = await screen.findByRole('button', { name: 'Export CSV' });
    await waitFor(() => expect(button).toBeEnabled());
    await userEvent.click(button);
    expect(saved).toHaveLength(1);
    const csv = await saved[0]!.blob.text();
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toBe('date,model,requests,prompt_tokens,completion_tokens,cost_usd');
    expect(lines).toContain(`${today},sim/echo-mini,1,5,7,0.00000033`);
    expect(lines.at(-1)).toMatch(/^total,.* to .*,4,30,88,0\.10026433$/);
    expect(await screen.findByTestId('chart-spend-total')).toHaveTextContent('$0.10026433');

    // Per request too: each request of the range with its cf-ray.
    await userEvent.click(screen.getByRole('button', { name: 'Export requests CSV' }));
    await waitFor(() => expect(saved).toHaveLength(2));
    const perRequest = (await saved[1]!.blob.text()).trimEnd().split('\r\n');
    expect(perRequest[0]).toBe(
      'time_utc,cf_ray,key,model,provider,prompt_tokens,completion_tokens,cost_usd,outcome,latency_ms',
    );
    expect(perRequest.slice(1).map((line) => line.split(',')[1])).toEqual([
      '0000000000000001-AMS',
      '0000000000000002-AMS',
    ]);
    vi.restoreAllMocks();
  });

  it('keeps the range and filters in the URL, and asks with them', async () => {
    const requests = mockActivity();
    const { currentLocation } = renderRoute('/activity?model=sim%2Fecho-mini&outcome=ended_early');
    await screen.findByRole('table', { name: 'Requests' }, { timeout: 5000 });
    const listCall = calls(requests, '/api/generations')[0];
    expect(listCall?.url.searchParams.get('model')).toBe('sim/echo-mini');
    expect(listCall?.url.searchParams.get('outcome')).toBe('ended_early');
    expect(screen.getByText(/narrows the table of requests only/)).toBeInTheDocument();
    // Totals follow the model filter.
    const totals = screen.getByRole('region', { name: /Totals for/ });
    expect(within(totals).getByText('$0.00000033')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: '7 days' }));
    await waitFor(() => expect(currentLocation().search).toContain('days=7'));
    expect(currentLocation().search).toContain('model=sim%2Fecho-mini');
    await waitFor(() =>
      expect(
        calls(requests, '/api/activity').some((call) => call.url.searchParams.get('days') === '7'),
      ).toBe(true),
    );
    expect(screen.getByRole('button', { name: '7 days' })).toHaveAttribute('aria-pressed', 'true');

    await userEvent.click(screen.getByRole('button', { name: 'Clear filters' }));
    await waitFor(() => expect(currentLocation().search).toBe('?days=7'));
  });

  it('loads the next page on the cursor', async () => {
    const requests = mockActivity({
      pages: [page([request(1), request(2)], '1'), page([request(3)], null)],
    });
    renderRoute('/activity');
    const table = await screen.findByRole('table', { name: 'Requests' }, { timeout: 5000 });
    // The rows in view reach the end of the first page, so the next one is asked for at once.
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(4));
    expect(within(table).getAllByRole('row')[3]).toHaveTextContent('0000000000000003-AMS');
    const cursors = calls(requests, '/api/generations').map((call) =>
      call.url.searchParams.get('cursor'),
    );
    expect(cursors).toEqual([null, '1']);
    expect(screen.queryByRole('button', { name: 'Load more requests' })).not.toBeInTheDocument();
  });

  it('says how to make the first request when there is none', async () => {
    mockActivity({ withRequests: false });
    renderRoute('/activity');
    const empty = await screen.findByText('No requests by demo-account in this range');
    // The empty range's figures are said, as figures.
    const totals = screen.getByRole('region', { name: /Totals for/ });
    expect(within(totals).getByText('Spend').nextElementSibling).toHaveTextContent('$0.00');
    expect(within(totals).getByText('Requests').nextElementSibling).toHaveTextContent(/^0$/);
    expect(within(empty.parentElement!).getByRole('link', { name: 'Playground' })).toHaveAttribute(
      'href',
      '/playground',
    );
    expect(screen.queryByRole('table', { name: 'Requests' })).not.toBeInTheDocument();
  });

  it('shows the gateway’s refusal with its advice', async () => {
    mockPageApi({
      'GET /api/activity': () =>
        jsonResponse(502, {
          error: {
            message: 'Cannot connect to the gateway.',
            stage: 'connect',
            advice: 'Start it.',
          },
        }),
      'GET /api/generations': () => page([]),
    });
    renderRoute('/activity');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Loading the activity of “demo-account” failed.');
    expect(alert).toHaveTextContent('Cannot connect to the gateway.');
  });

  it('shows which key made each request for an account profile', async () => {
    mockActivity({
      pages: [
        page([
          request(1, { child: { id: 'key_1', name: 'intern', masked_key: 'sk-gw-…e5f6' } }),
          request(2),
        ]),
      ],
    });
    renderRoute('/activity');
    const table = await screen.findByRole('table', { name: 'Requests' }, { timeout: 5000 });
    expect(within(table).getAllByRole('columnheader', { name: 'Model · key' })).toHaveLength(1);
    expect(within(table).getAllByRole('row')[1]).toHaveTextContent('key: intern');
    expect(within(table).getAllByRole('row')[2]).not.toHaveTextContent('key:');
    await act(async () => undefined);
  });

  it('narrows an account profile’s requests, charts and totals to one child key', async () => {
    const requests = mockActivity({
      handlers: { [`GET ${childKeysPath}`]: () => childKeysAnswer([nightly, sharedBot]) },
    });
    const user = userEvent.setup();
    const { currentLocation } = renderRoute('/activity');
    await screen.findByRole('table', { name: 'Requests' }, { timeout: 5000 });
    await user.click(await screen.findByRole('combobox', { name: 'Made with' }));
    await user.click(await screen.findByRole('option', { name: 'chat-bot (sk-gw-…b0t5)' }));
    await waitFor(() => expect(currentLocation().search).toContain('key_id=key_bot'));
    await waitFor(() => {
      expect(calls(requests, '/api/generations').at(-1)?.url.searchParams.get('key_id')).toBe(
        'key_bot',
      );
      expect(calls(requests, '/api/activity').at(-1)?.url.searchParams.get('key_id')).toBe(
        'key_bot',
      );
    });
    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    await waitFor(() => expect(currentLocation().search).not.toContain('key_id'));
    // The account key's own requests, apart from its children's.
    await user.click(await screen.findByRole('combobox', { name: 'Made with' }));
    await user.click(
      await screen.findByRole('option', { name: 'demo-account itself (the account key)' }),
    );
    await waitFor(() => expect(currentLocation().search).toContain('key_id=key_account'));
  });

  it('offers no key filter to a profile that is not an account', async () => {
    const requests = mockActivity();
    renderRoute('/activity?profile=demo-allocated-child&key_id=key_bot');
    await screen.findByRole('table', { name: 'Requests' }, { timeout: 5000 });
    expect(screen.queryByRole('combobox', { name: 'Made with' })).not.toBeInTheDocument();
    expect(calls(requests, '/api/generations')[0]?.url.searchParams.get('key_id')).toBeNull();
    expect(calls(requests, `/api/profiles/demo-allocated-child/child-keys`)).toHaveLength(0);
  });

  it('marks the requests a rotated profile made with its earlier key', async () => {
    mockActivity({
      pages: [
        page([
          request(1),
          request(2, { child: { id: 'key_old', name: 'ci', masked_key: 'sk-gw-…9z8y' } }),
        ]),
      ],
    });
    renderRoute('/activity?profile=demo-allocated-child');
    const table = await screen.findByRole('table', { name: 'Requests' }, { timeout: 5000 });
    const rows = within(table).getAllByRole('row');
    expect(rows[2]).toHaveTextContent('earlier key: sk-gw-…9z8y');
    expect(
      within(rows[2]!).getAllByTitle(/the key this profile used before it was rotated/).length,
    ).toBeGreaterThan(0);
    expect(rows[1]).not.toHaveTextContent('key:');
    await act(async () => undefined);
  });
});
