import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { BalanceView, KeyState } from '../../../contract/workbench-api';
import { makeBalanceView, makeModel } from '../../test/fixtures';
import { jsonResponse, mockPageApi, renderRoute, type MockHandler } from '../../test/render-app';
import { KeyStateBadge } from './components/key-state-badge';
import { chartPoints } from './components/balance-chart';
import { remainingShare } from './key-state';

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

describe('balance helpers', () => {
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

describe('KeysPage', () => {
  it('shows the chosen profile: identity, masked key, state, Remaining against the limit, every figure', async () => {
    mockKeys(allBalances);
    renderRoute('/keys');
    const panel = await screen.findByRole('region', { name: 'demo-account' });
    expect(within(panel).getByText('Account key')).toBeInTheDocument();
    expect(within(panel).getByText('sk-gw-…a1b2')).toBeInTheDocument();
    expect(within(panel).getByText('Active')).toBeInTheDocument();
    expect(screen.getByText('Remaining')).toBeInTheDocument();
    expect(within(panel).getByText('$7.50')).toBeInTheDocument();
    expect(within(panel).getByRole('meter')).toHaveAttribute('aria-valuenow', '75');
    expect(within(panel).getByText('Consumption')).toBeInTheDocument();
    expect(within(panel).getByText('$0.05 allowance')).toBeInTheDocument();
    expect(within(panel).getByText(/not spendable/)).toBeInTheDocument();
    expect(within(panel).getByText(/can lag minutes/)).toBeInTheDocument();
    expect(within(panel).getByText('Never')).toBeInTheDocument();
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

  it('falls back to the spec’s advice when no guidance came', async () => {
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

  it('tells a child key that looks active how to find out whether its parent blocks it', async () => {
    mockKeys(allBalances);
    renderRoute('/keys?profile=demo-allocated-child');
    const panel = await screen.findByRole('region', { name: 'demo-allocated-child' });
    expect(within(panel).getByText(/while its parent key is disabled or expired/)).toBeInTheDocument();
  });

  it('says nothing about parents for an account key', async () => {
    mockKeys(allBalances);
    renderRoute('/keys?profile=demo-account');
    const panel = await screen.findByRole('region', { name: 'demo-account' });
    expect(within(panel).queryByText(/while its parent key is disabled or expired/)).not.toBeInTheDocument();
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

  it('lists every profile at a glance and switches on click', async () => {
    mockKeys(allBalances);
    renderRoute('/keys');
    const table = await screen.findByRole('table');
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
});
