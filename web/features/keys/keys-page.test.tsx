import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { BalanceView, KeyState } from '../../../contract/workbench-api';
import { makeBalanceView, makeModel } from '../../test/fixtures';
import { jsonResponse, mockPageApi, renderRoute, type MockHandler } from '../../test/render-app';
import { KeyStateBadge } from './components/key-state-badge';
import { BalanceChart, chartPoints, keepsSample, stepLinePoints } from './components/balance-chart';
import { dailyBalances } from './balance-history';
import { formatShare, liveKeyState, remainingShare } from './key-state';

function mockKeys(balances: Record<string, BalanceView>, extra: Record<string, MockHandler> = {}) {
  return mockPageApi({
    'GET /api/catalog': () => ({
      models: [
        makeModel({ id: 'acme/pricey', completion_price: '0.00006' }),
        makeModel({ id: 'acme/cheap', completion_price: '0.0000001' }),
      ],
      fetched_at: 1,
      skipped: 0,
    }),
    'GET /api/balance': (request) => {
      const profile = request.url.searchParams.get('profile') ?? '';
      return (
        balances[profile] ??
        jsonResponse(404, { error: { message: `Unknown profile ${profile}`, stage: 'profile' } })
      );
    },
    // The demo account has no children here (child-keys-section.test.tsx covers them).
    'GET /api/profiles/demo-account/child-keys': () => ({
      profile: 'demo-account',
      keys: [],
      keys_store: 'data/workbench-keys.json',
      fetched_at: 1,
    }),
    // Nor notification endpoints (notifications-section.test.tsx covers them).
    'GET /api/profiles/demo-account/webhooks': () => ({
      profile: 'demo-account',
      webhooks: [],
      fetched_at: 1,
    }),
    ...extra,
  });
}

const accountBalance = makeBalanceView({ profile: 'demo-account' });
const allBalances = {
  'demo-account': accountBalance,
  'demo-allocated-child': makeBalanceView({
    profile: 'demo-allocated-child',
    balance: { identity: 'allocated_child', remaining_usd: 1, limit_usd: 2 },
  }),
  'demo-shared-child': makeBalanceView({
    profile: 'demo-shared-child',
    balance: { identity: 'shared_child', key: 'sk-gw-…e5f6' },
  }),
};

// The Keys route is lazy: load it once, so no test's first find waits for the import.
beforeAll(async () => {
  await import('./keys-page');
});

describe('KeyStateBadge', () => {
  it.each<[KeyState, string]>([
    ['active', 'Active'],
    ['expired', 'Expired'],
    ['disabled', 'Disabled'],
    ['depleted', 'Depleted'],
    ['blocked', 'Blocked'],
  ])('shows %s as the word %s', (state, word) => {
    render(<KeyStateBadge state={state} />);
    expect(screen.getByText(word)).toBeInTheDocument();
  });
});

/** Visible to a person: not inside a closed `<details>` (jsdom has no layout to ask). */
function isVisible(element: HTMLElement): boolean {
  const details = element.closest('details');
  return !details || details.open || element.tagName === 'SUMMARY';
}

describe('balance helpers', () => {
  it('formats shares the same way everywhere', () => {
    expect([75, 7.52, 0.05, 99.6, 100, 0].map(formatShare)).toEqual([
      '75%',
      '7.5%',
      '<0.1%',
      '99%',
      '100%',
      '0%',
    ]);
  });

  it('derives Expired from the expiry on this clock, Disabled first', () => {
    const expiring = makeBalanceView({ balance: { expires_at: 1_000 } });
    expect(liveKeyState(expiring, 999_999)).toBe('active');
    expect(liveKeyState(expiring, 1_000_000)).toBe('expired');
    expect(liveKeyState({ ...expiring, state: 'blocked' }, 1_000_000)).toBe('expired');
    expect(liveKeyState({ ...expiring, state: 'disabled' }, 1_000_000)).toBe('disabled');
  });

  it('keeps a chart sample when the balance moves or half a minute passed', () => {
    const samples = [{ time: 1_000, remaining: 5 }];
    expect(keepsSample(samples, { time: 6_000, remaining: 5 })).toBe(false);
    expect(keepsSample(samples, { time: 6_000, remaining: 4 })).toBe(true);
    expect(keepsSample(samples, { time: 31_000, remaining: 5 })).toBe(true);
    expect(keepsSample([], { time: 1, remaining: 5 })).toBe(true);
  });

  it('computes the remaining share of the limit, clamped', () => {
    expect(remainingShare(7.5, 10)).toBe(75);
    expect(remainingShare(12, 10)).toBe(100);
    expect(remainingShare(0, 10)).toBe(0);
    expect(remainingShare(5, 0)).toBeNull();
  });

  it('draws newer samples further right and lower balances lower', () => {
    const points = chartPoints([
      { time: 1000, remaining: 10 },
      { time: 2000, remaining: 5 },
    ]);
    expect(points[1]!.x).toBeGreaterThan(points[0]!.x);
    expect(points[1]!.y).toBeGreaterThan(points[0]!.y);
  });
});

describe('dailyBalances', () => {
  it('works back from today’s remaining and each later day’s spend, to the nano-dollar', () => {
    const day = (date: string, cost_usd: number) => ({
      date,
      requests: 1,
      prompt_tokens: 1,
      completion_tokens: 1,
      cost_usd,
      models: [],
    });
    const samples = dailyBalances(7.5, [
      day('2026-11-29', 5),
      day('2026-11-30', 0.000000001),
      day('2026-12-01', 0.1),
      day('2026-12-02', 0.2),
    ]);
    expect(samples.map((sample) => [sample.label, sample.remaining])).toEqual([
      ['end of Nov 29', 7.800000001],
      ['end of Nov 30', 7.8],
      ['end of Dec 1', 7.7],
    ]);
    expect(samples[2]!.time).toBe(Date.parse('2026-12-01T23:59:59Z'));
  });
});

describe('KeysPage', () => {
  it('shows the chosen profile: identity, masked key, state, Remaining against the limit, every figure', async () => {
    mockKeys(allBalances);
    renderRoute('/keys');
    // The first page of the file: the router and the page render for the first time here.
    const panel = await screen.findByRole('region', { name: 'demo-account' }, { timeout: 5_000 });
    expect(within(panel).getByText('Account key')).toBeInTheDocument();
    expect(within(panel).getByText('sk-gw-…a1b2')).toBeInTheDocument();
    expect(within(panel).getByText('Active')).toBeInTheDocument();
    expect(within(panel).getByText('Remaining')).toBeInTheDocument();
    expect(within(panel).getByText('$7.50')).toBeInTheDocument();
    expect(within(panel).getByRole('meter')).toHaveAttribute('aria-valuenow', '75');
    expect(within(panel).getByText('Consumption')).toBeInTheDocument();
    expect(within(panel).getByText('$0.05 allowance')).toBeInTheDocument();
    expect(within(panel).getByText(/not spendable/)).toBeInTheDocument();
    expect(within(panel).getByText(/recent requests are pending/)).toBeInTheDocument();
    expect(within(panel).getByText('Never')).toBeInTheDocument();
  });

  it('draws the balance chart from the daily spend at once, in cents, exact in the details', async () => {
    mockKeys(allBalances, {
      'GET /api/activity': (request) => ({
        profile: request.url.searchParams.get('profile'),
        days: 3,
        from: '2026-11-30',
        to: '2026-12-02',
        data: [
          {
            date: '2026-11-30',
            requests: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
            cost_usd: 0,
            models: [],
          },
          {
            date: '2026-12-01',
            requests: 2,
            prompt_tokens: 9,
            completion_tokens: 9,
            cost_usd: 1.234567891,
            models: [],
          },
          {
            date: '2026-12-02',
            requests: 1,
            prompt_tokens: 9,
            completion_tokens: 9,
            cost_usd: 0.5,
            models: [],
          },
        ],
        totals: { requests: 3, prompt_tokens: 18, completion_tokens: 18, cost_usd: 1.734567891 },
        fetched_at: 1,
      }),
    });
    renderRoute('/keys');
    // Two past days' ends and this visit's first sample: a line, not "starts with the second".
    const chart = await screen.findByRole('img', { name: /^3 samples from end of Nov 30/ });
    expect(chart).toHaveAccessibleName(/: \$9\.23 to \$7\.50$/);
    const high = screen.getByText('$9.23');
    expect(high).toBeInTheDocument();
    const details = screen.getByText('Exact amounts').closest('details')!;
    expect(details).toHaveTextContent('end of Nov 30$9.234567891');
    expect(details).toHaveTextContent('end of Dec 1$8');
  });

  it('takes the charges not settled yet off Remaining, and says how much they are', async () => {
    mockKeys({
      ...allBalances,
      'demo-account': makeBalanceView({
        balance: {
          remaining_usd: 0.001,
          limit_usd: 0.001,
          consumption_usd: 0,
          pending_usd: 0.000724,
        },
      }),
    });
    renderRoute('/keys');
    const panel = await screen.findByRole('region', { name: 'demo-account' });
    const remaining = within(panel).getByText('Remaining', { selector: 'dt' });
    expect(remaining.nextElementSibling).toHaveTextContent('$0.000276');
    expect(within(panel).getByText('including $0.000724 pending')).toBeInTheDocument();
    expect(within(panel).getByRole('meter')).toHaveAttribute(
      'aria-valuetext',
      '28% of the limit remaining',
    );
    const table = screen.getByRole('table', { name: /profiles/i });
    expect(within(table).getByRole('row', { name: /demo-account/ })).toHaveTextContent('$0.000276');
  });

  it('shows each non-active state with its guidance', async () => {
    mockKeys({
      ...allBalances,
      'demo-account': makeBalanceView({
        profile: 'demo-account',
        state: 'disabled',
        guidance: 'Enable the key or use another; do not retry unchanged.',
        balance: { disabled: true },
      }),
    });
    renderRoute('/keys');
    const panel = await screen.findByRole('region', { name: 'demo-account' });
    expect(within(panel).getByText('Disabled')).toBeInTheDocument();
    expect(within(panel).getByRole('note')).toHaveTextContent(
      'Enable the key or use another; do not retry unchanged.',
    );
    expect(within(panel).getByText(/not usable while disabled/)).toBeInTheDocument();
  });

  it('falls back to the generic advice when no guidance came', async () => {
    mockKeys({
      ...allBalances,
      'demo-account': makeBalanceView({
        state: 'expired',
        guidance: '',
        balance: { expired: true },
      }),
    });
    renderRoute('/keys');
    const panel = await screen.findByRole('region', { name: 'demo-account' });
    expect(within(panel).getByText('Expired')).toBeInTheDocument();
    expect(within(panel).getByRole('note')).toHaveTextContent('requests answer HTTP 402');
    expect(within(panel).getByRole('note')).toHaveTextContent(
      'do not retry the same request unchanged',
    );
  });

  it('says a shared child shows its parent’s balance', async () => {
    mockKeys(allBalances);
    renderRoute('/keys?profile=demo-shared-child');
    const panel = await screen.findByRole('region', { name: 'demo-shared-child' });
    expect(within(panel).getByText('Shared child key')).toBeInTheDocument();
    expect(within(panel).getByText('parent’s balance')).toBeInTheDocument();
    expect(within(panel).getByText(/shows its parent’s balance/)).toBeInTheDocument();
  });

  it('shows a shared child’s own spend in its panel, beside the parent’s balance', async () => {
    const requests = mockKeys(allBalances, {
      'GET /api/activity': (request) => ({
        profile: request.url.searchParams.get('profile'),
        days: 30,
        from: '2026-11-03',
        to: '2026-12-02',
        data: [],
        totals: { requests: 2, prompt_tokens: 1, completion_tokens: 1, cost_usd: 1.0049 },
        fetched_at: 1,
      }),
    });
    renderRoute('/keys?profile=demo-shared-child');
    const panel = await screen.findByRole('region', { name: 'demo-shared-child' });
    const label = within(panel).getByText('Own spend (30 days)', { selector: 'dt' });
    await waitFor(() => expect(label.nextElementSibling).toHaveTextContent('$1.00'));
    expect(
      within(label.parentElement!).getByTitle(/^\$1\.0049 spent by this key itself/),
    ).toBeInTheDocument();
    expect(
      requests.some(
        (request) =>
          request.url.pathname === '/api/activity' &&
          request.url.searchParams.get('profile') === 'demo-shared-child',
      ),
    ).toBe(true);
  });

  it('shows a child its parent blocks as Blocked, with the reason and what to do, in the card and the table', async () => {
    const blocked = (profile: string, identity: 'allocated_child' | 'shared_child') =>
      makeBalanceView({
        profile,
        state: 'blocked',
        blocked_by: { reason: 'parent_disabled', summary: 'its parent key is disabled' },
        guidance: 'This key’s parent key is disabled… keys enable PARENT_ID…',
        balance: { identity },
      });
    mockKeys({
      ...allBalances,
      'demo-allocated-child': blocked('demo-allocated-child', 'allocated_child'),
      'demo-shared-child': blocked('demo-shared-child', 'shared_child'),
    });
    renderRoute('/keys?profile=demo-allocated-child');
    const panel = await screen.findByRole('region', { name: 'demo-allocated-child' });
    expect(within(panel).getByText('Blocked')).toBeInTheDocument();
    expect(within(panel).getByText('because its parent key is disabled')).toBeInTheDocument();
    expect(within(panel).getByRole('note')).toHaveTextContent('keys enable PARENT_ID');
    expect(
      within(panel).getByText(/not expired, enabled; its parent key is disabled/),
    ).toBeInTheDocument();
    const table = screen.getByRole('table', { name: 'All key profiles' });
    for (const child of ['demo-allocated-child', 'demo-shared-child']) {
      const row = within(table).getByRole('button', { name: child }).closest('tr')!;
      await waitFor(() => expect(within(row).getByText('Blocked', { exact: true })).toBeVisible());
      expect(row).toHaveTextContent('its parent key is disabled');
    }
  });

  it('turns Blocked without a reload when the gateway starts refusing the key', async () => {
    let state: BalanceView = allBalances['demo-allocated-child'];
    mockKeys({}, { 'GET /api/balance': () => state });
    renderRoute('/keys?profile=demo-allocated-child');
    const panel = await screen.findByRole('region', { name: 'demo-allocated-child' });
    expect(within(panel).getByText('Active')).toBeInTheDocument();
    state = {
      ...state,
      state: 'blocked',
      blocked_by: { reason: 'parent_disabled', summary: 'its parent key is disabled' },
    };
    // The page polls every few seconds while it is open.
    expect(await within(panel).findByText('Blocked', {}, { timeout: 7_000 })).toBeInTheDocument();
  });

  it('says nothing about parents for an account key', async () => {
    mockKeys(allBalances);
    renderRoute('/keys?profile=demo-account');
    const panel = await screen.findByRole('region', { name: 'demo-account' });
    expect(within(panel).queryByText(/parent/)).not.toBeInTheDocument();
  });

  it('turns Expired at the moment the key expires, and asks the gateway again then', async () => {
    const expiresAt = Math.ceil(Date.now() / 1000) + 2;
    const requests = mockKeys({
      ...allBalances,
      'demo-account': makeBalanceView({ balance: { expires_at: expiresAt } }),
    });
    renderRoute('/keys');
    const panel = await screen.findByRole('region', { name: 'demo-account' });
    expect(within(panel).getByText('Active')).toBeInTheDocument();
    const asked = () =>
      requests.filter(
        (request) =>
          request.url.pathname === '/api/balance' &&
          request.url.searchParams.get('profile') === 'demo-account',
      ).length;
    const before = asked();
    expect(await within(panel).findByText('Expired', {}, { timeout: 3_500 })).toBeInTheDocument();
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt * 1000);
    expect(Date.now()).toBeLessThan(expiresAt * 1000 + 1_000);
    await waitFor(() => expect(asked()).toBeGreaterThan(before));
    // The generic words stand in until the BFF's guidance for the new state comes.
    expect(within(panel).getByRole('note')).toHaveTextContent('The key has expired');
  });

  it('marks old figures stale, with their time, when a refresh fails', async () => {
    let failing = false;
    mockKeys(
      {},
      {
        'GET /api/balance': (request) =>
          failing
            ? jsonResponse(502, {
                error: {
                  message: 'Cannot connect to the gateway.',
                  stage: 'connect',
                  advice: 'Check that the gateway is running.',
                },
              })
            : allBalances[request.url.searchParams.get('profile') as keyof typeof allBalances],
      },
    );
    renderRoute('/keys');
    const panel = await screen.findByRole('region', { name: 'demo-account' });
    const table = screen.getByRole('table', { name: 'All key profiles' });
    await waitFor(() => expect(within(table).getAllByText('$1.00')).toHaveLength(1));
    failing = true;
    await userEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(
      await screen.findByText('Loading the balance of “demo-account” failed.'),
    ).toBeInTheDocument();
    expect(within(panel).getByRole('note', { name: 'Stale figures' })).toHaveTextContent(
      /these figures are from \d{2}:\d{2}:\d{2}/,
    );
    const row = within(table).getByRole('button', { name: 'demo-allocated-child' }).closest('tr')!;
    await waitFor(() => expect(row).toHaveTextContent('could not load'));
    expect(row).toHaveTextContent(/\$1\.00stale · \d{2}:\d{2}:\d{2}/);
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });

  it('shows the expiry as a date and a countdown', async () => {
    const inTwoDays = Math.floor(Date.now() / 1000) + 2 * 86_400 + 3700;
    mockKeys({
      ...allBalances,
      'demo-account': makeBalanceView({ balance: { expires_at: inTwoDays } }),
    });
    renderRoute('/keys');
    const panel = await screen.findByRole('region', { name: 'demo-account' });
    expect(within(panel).getByText(/^in 2 d 1 h$/)).toBeInTheDocument();
  });

  it('chooses a profile by a click anywhere on its row, and writes it to the URL', async () => {
    mockKeys(allBalances);
    const { currentLocation } = renderRoute('/keys');
    const table = await screen.findByRole('table', { name: 'All key profiles' });
    await userEvent.click(within(table).getByText('sk-gw-…e5f6'));
    expect(await screen.findByRole('region', { name: 'demo-shared-child' })).toBeInTheDocument();
    expect(currentLocation().search).toBe('?profile=demo-shared-child');
  });

  it('keeps Profile, State and Remaining on a phone; the other columns fold away', async () => {
    mockKeys(allBalances);
    renderRoute('/keys');
    const table = await screen.findByRole('table', { name: 'All key profiles' });
    const visible = within(table)
      .getAllByRole('columnheader')
      .filter((header) => !header.classList.contains('hidden'));
    expect(visible.map((header) => header.textContent)).toEqual(['Profile', 'State', 'Remaining']);
  });

  it('explains the shared child once, Recharge, and gives one percentage everywhere', async () => {
    mockKeys({
      ...allBalances,
      'demo-shared-child': makeBalanceView({
        profile: 'demo-shared-child',
        guidance: 'Requests are served while balance remains.',
        balance: {
          identity: 'shared_child',
          remaining_usd: 0.5,
          limit_usd: 10,
          note: 'This is a shared child key: the figures are its parent key’s balance.',
        },
      }),
    });
    renderRoute('/keys?profile=demo-shared-child');
    const panel = await screen.findByRole('region', { name: 'demo-shared-child' });
    const explanations = within(panel)
      .getAllByText(/shared child key:/i)
      .filter((element) => isVisible(element));
    expect(explanations).toHaveLength(1);
    expect(within(panel).getByText(/money paid in \(top-ups\)/)).toBeInTheDocument();
    expect(within(panel).getByText(/· 5% left/)).toBeInTheDocument();
    expect(within(panel).getByRole('meter')).toHaveAttribute(
      'aria-valuetext',
      '5% of the limit remaining',
    );
  });

  it('labels a shared child’s money figures as its parent’s, and says once how figures relate', async () => {
    mockKeys({
      ...allBalances,
      'demo-shared-child': makeBalanceView({
        profile: 'demo-shared-child',
        balance: { identity: 'shared_child', limit_usd: 10, recharge_usd: 10 },
      }),
    });
    renderRoute('/keys?profile=demo-shared-child');
    const shared = await screen.findByRole('region', { name: 'demo-shared-child' });
    const labels = within(shared)
      .getAllByRole('term')
      .map((term) => term.textContent);
    for (const figure of ['Limit', 'Consumption', 'Recharge', 'Credit', 'Allocated']) {
      expect(labels).toContain(`${figure} (parent’s)`);
      expect(labels).not.toContain(figure);
    }
    expect(within(shared).getAllByText(/all of them the parent account’s\.$/)).toHaveLength(1);
  });

  it('says how an account’s figures make up Remaining', async () => {
    mockKeys(allBalances);
    renderRoute('/keys?profile=demo-account');
    const panel = await screen.findByRole('region', { name: 'demo-account' });
    expect(
      within(panel)
        .getAllByRole('term')
        .map((term) => term.textContent),
    ).toContain('Limit');
    expect(
      within(panel).getByText(
        /^Limit = Recharge \+ Credit − Allocated .*Remaining = Limit − Consumption − Pending\.$/,
      ),
    ).toBeInTheDocument();
  });

  it('lists every profile at a glance and switches on click', async () => {
    mockKeys(allBalances);
    renderRoute('/keys');
    const table = await screen.findByRole('table', { name: 'All key profiles' });
    await waitFor(() => expect(within(table).getAllByText('$1.00')).toHaveLength(1));
    expect(within(table).getAllByRole('row')).toHaveLength(4);
    await userEvent.click(within(table).getByRole('button', { name: 'demo-allocated-child' }));
    expect(await screen.findByRole('region', { name: 'demo-allocated-child' })).toBeInTheDocument();
    expect(window.localStorage.getItem('workbench.profile')).toBe('demo-allocated-child');
  });

  it('explains a failed balance load with stage and advice', async () => {
    mockKeys(
      {},
      {
        'GET /api/balance': () =>
          jsonResponse(401, {
            error: {
              message: 'The gateway rejected the key.',
              stage: 'authentication',
              upstream_status: 401,
              advice: 'Check the key file.',
            },
          }),
      },
    );
    renderRoute('/keys');
    const alert = await screen.findByText('Loading the balance of “demo-account” failed.');
    const panel = alert.closest('[role="alert"]');
    expect(panel).toHaveTextContent('authentication');
    expect(panel).toHaveTextContent('Check the key file.');
  });

  it('validates the key only after showing the estimated cost', async () => {
    const requests = mockKeys(allBalances, {
      'GET /api/validate-key/estimate': (request) => ({
        model: request.url.searchParams.get('model'),
        max_tokens: 1,
        estimated_cost_usd: 0.000004,
      }),
      'POST /api/validate-key': () => ({
        valid: true,
        state: 'active',
        message: 'The key works.',
        estimated_cost_usd: 0.000004,
        cost_usd: 0.000003,
        meta: { upstream_status: 200, cf_ray: '0123456789abcdef-AMS', ttfb_ms: 120, total_ms: 130 },
      }),
    });
    renderRoute('/keys');
    await screen.findByRole('region', { name: 'demo-account' });
    await userEvent.click(screen.getByRole('button', { name: 'Validate key' }));
    const dialog = await screen.findByRole('dialog');
    expect(await within(dialog).findByText('$0.000004')).toBeInTheDocument();
    expect(requests.some((request) => request.method === 'POST')).toBe(false);
    const estimate = requests.find(
      (request) => request.url.pathname === '/api/validate-key/estimate',
    );
    expect(estimate?.url.searchParams.get('model')).toBe('acme/cheap');
    await userEvent.click(within(dialog).getByRole('button', { name: /Run check/ }));
    expect(await within(dialog).findByText('The key works.')).toBeInTheDocument();
    const post = requests.find((request) => request.method === 'POST');
    expect(post?.body).toEqual({ profile: 'demo-account', model: 'acme/cheap', max_tokens: 1 });
    expect(post?.headers.get('Content-Type')).toBe('application/json');
    expect(within(dialog).getByText('0123456789abcdef-AMS')).toBeInTheDocument();
  });

  it('a refused key costs nothing, said as the playground says it', async () => {
    mockKeys(allBalances, {
      'GET /api/validate-key/estimate': () => ({
        model: 'acme/cheap',
        max_tokens: 1,
        estimated_cost_usd: 0,
      }),
      'POST /api/validate-key': () => ({
        valid: false,
        state: 'expired',
        message: 'The key has expired.',
        estimated_cost_usd: 0,
        cost_usd: null,
        meta: { upstream_status: 402, cf_ray: null, ttfb_ms: 2, total_ms: 2 },
      }),
    });
    renderRoute('/keys');
    await screen.findByRole('region', { name: 'demo-account' });
    await userEvent.click(screen.getByRole('button', { name: 'Validate key' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.click(await within(dialog).findByRole('button', { name: /Run check/ }));
    expect(await within(dialog).findByText('The key has expired.')).toBeInTheDocument();
    expect(within(dialog).getByText('$0.00 · refused')).toBeInTheDocument();
    expect(within(dialog).queryByText(/not reported yet/)).not.toBeInTheDocument();
  });
});

describe('BalanceChart', () => {
  /** An element of that tag whose whole text is `text` (the amount is a span of its own). */
  const textIs = (tag: string, text: string) => (_: string, element: Element | null) =>
    element?.tagName === tag && element.textContent === text;

  it('labels its axes and reads out the value under the pointer', () => {
    const samples = [
      { time: new Date(2026, 0, 1, 12, 0, 0).getTime(), remaining: 10 },
      { time: new Date(2026, 0, 1, 12, 0, 30).getTime(), remaining: 7.5 },
    ];
    render(<BalanceChart samples={samples} />);
    // The axes (the details below list the same values exactly).
    const axes = { ignore: 'details *' };
    expect(screen.getByText('$10.00', axes)).toBeInTheDocument();
    expect(screen.getByText('$7.50', axes)).toBeInTheDocument();
    expect(screen.getByText('12:00:00', axes)).toBeInTheDocument();
    expect(screen.getByText('12:00:30', axes)).toBeInTheDocument();
    const chart = screen.getByRole('img');
    chart.getBoundingClientRect = () => ({ left: 0, width: 320 }) as DOMRect;
    fireEvent.pointerMove(chart, { clientX: 310 });
    expect(screen.getByText(textIs('P', '12:00:30 · $7.50'))).toBeInTheDocument();
    fireEvent.pointerLeave(chart);
    expect(screen.getByText('2 samples')).toBeInTheDocument();
  });

  it('draws a step at each change, not a slope between samples', () => {
    const { container } = render(
      <BalanceChart
        samples={[
          { time: 1000, remaining: 10 },
          { time: 2000, remaining: 5 },
        ]}
      />,
    );
    const line = container.querySelector('polyline');
    // The balance holds at 10 until the second sample, then drops there: three corners.
    expect(line?.getAttribute('points')?.split(' ')).toHaveLength(3);
    expect(
      stepLinePoints([
        { x: 0, y: 10 },
        { x: 5, y: 20 },
      ]),
    ).toBe('0,10 5,10 5,20');
  });

  it('shows the one value and what it waits for instead of a lone dot', () => {
    render(
      <BalanceChart
        samples={[{ time: new Date(2026, 0, 1, 12, 0, 0).getTime(), remaining: 10 }]}
      />,
    );
    expect(screen.queryByRole('img')).not.toBeInTheDocument();
    expect(screen.getByText(textIs('SPAN', '$10.00 at 12:00:00'))).toBeInTheDocument();
    expect(screen.getByText('The line starts with the second sample.')).toBeInTheDocument();
  });
});
