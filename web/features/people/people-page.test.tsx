import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Person } from '../../../contract/workbench-people';
import { mockPageApi, renderRoute } from '../../test/render-app';

const oidc = { sign_in_path: '/auth/oidc/sign-in', token_sign_in: false };

function personOf(name: string, overrides: Partial<Person> = {}): Person {
  return {
    id: `id-${name}`,
    email: `${name}@example.com`,
    name: name[0]!.toUpperCase() + name.slice(1),
    groups: [],
    role: 'member',
    disabled: false,
    profile: `${name} at example.com`,
    key_id: `key_${name}`,
    key: {
      id: `key_${name}`,
      kind: 'allocated_child',
      key: 'sk-…wxyz',
      state: 'active',
      disabled: false,
      limit_usd: 10,
      consumption_usd: 1.25,
      remaining_usd: 8.75,
      limit_reset: 'monthly',
      resets_at: 1_767_225_600,
      allowed_models: ['anthropic/*'],
    },
    key_problem: null,
    created_at: 1_764_000_000_000,
    last_sign_in_at: 1_764_000_000_000,
    last_request_at: null,
    ...overrides,
  };
}

/** A session of people's sign-in, as `GET /api/session` answers it. */
const signedIn = (role: 'admin' | 'member', extra: Record<string, unknown> = {}) => ({
  required: true,
  signed_in: true,
  expires_at: Date.now() + 60_000,
  oidc,
  role,
  ...extra,
});

describe('the People page', () => {
  it("shows a member their own key and hands it over once, and nobody else's", async () => {
    const alice = personOf('alice');
    const requests = mockPageApi({
      'GET /api/session': () =>
        signedIn('member', {
          person: { id: alice.id, email: alice.email, name: alice.name, profile: alice.profile },
        }),
      'GET /api/people/me': () => ({ person: alice }),
      'POST /api/people/me/key/hand-over': () => ({
        key_id: alice.key_id,
        profile: alice.profile,
        secret: 'sk-handed-over-for-the-test',
      }),
    });
    renderRoute('/people');
    const panel = await screen.findByRole('region', { name: 'Your key' });
    expect(within(panel).getByText('$1.25 of $10.00 this month')).toBeInTheDocument();
    expect(within(panel).getByText('anthropic/*')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Everyone' })).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Audit log' })).not.toBeInTheDocument();
    expect(requests.some((request) => request.url.pathname === '/api/people')).toBe(false);

    const handOver = within(panel).getByRole('button', { name: 'Hand over' });
    expect(handOver).toBeDisabled();
    await userEvent.click(within(panel).getByRole('checkbox'));
    await userEvent.click(handOver);
    expect(await within(panel).findByLabelText('Your new key')).toHaveTextContent(
      'sk-handed-over-for-the-test',
    );
    const posted = requests.find((request) => request.method === 'POST');
    expect(posted?.body).toEqual({ show_once: true });
  });

  it('shows an admin everyone with their spend, disables one, and lists the audit log', async () => {
    const bob = personOf('bob', { last_request_at: 1_764_000_100 });
    const requests = mockPageApi({
      'GET /api/session': () => signedIn('admin'),
      'GET /api/people': () => ({
        people: [personOf('alice'), bob],
        team_profile: 'team',
        policy_source: 'environment',
        default_policy: {
          kind: 'allocated_child',
          limit_usd: 10,
          limit_reset: 'monthly',
          allowed_models: [],
        },
        fetched_at: Date.now(),
      }),
      'PATCH /api/people/id-bob': () => ({ person: { ...bob, disabled: true } }),
      'PUT /api/people/policy': (request) => ({ policy: request.body }),
      'GET /api/audit': () => ({
        entries: [
          {
            id: 'entry-1',
            at: 1_764_000_000_000,
            actor: { kind: 'person', id: 'id-carol', email: 'carol@example.com', role: 'admin' },
            action: 'person.update',
            target: { type: 'person', id: 'id-alice' },
            before: { key: { limit_usd: 5 } },
            after: { key: { limit_usd: 10 } },
          },
        ],
        fetched_at: Date.now(),
      }),
    });
    renderRoute('/people');
    expect(await screen.findByRole('link', { name: 'People' })).toBeInTheDocument();
    const table = await screen.findByRole('table', { name: 'People' });
    const bobRow = within(table).getByText('Bob').closest('tr')!;
    expect(within(bobRow).getByText('$1.25 of $10.00 this month')).toBeInTheDocument();
    await userEvent.click(within(bobRow).getByRole('button', { name: 'Disable Bob' }));
    await waitFor(() =>
      expect(requests.find((request) => request.method === 'PATCH')?.body).toEqual({
        disabled: true,
      }),
    );

    await userEvent.click(within(bobRow).getByRole('button', { name: "Change Bob's budget" }));
    const editor = screen.getByRole('form', { name: "Change Bob's key" });
    const budget = within(editor).getByLabelText('Budget (USD)');
    await userEvent.clear(budget);
    await userEvent.click(within(editor).getByRole('button', { name: 'Save' }));
    expect(within(editor).getByText('Enter a budget in USD, 0 or more.')).toBeInTheDocument();
    await userEvent.type(budget, '12');
    await userEvent.click(within(editor).getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(requests.filter((request) => request.method === 'PATCH').at(-1)?.body).toEqual({
        limit_usd: 12,
        limit_reset: 'monthly',
        allowed_models: ['anthropic/*'],
      }),
    );

    const audit = await screen.findByRole('table', { name: 'Audit log' });
    expect(within(audit).getByText('carol@example.com')).toBeInTheDocument();
    expect(within(audit).getByText('person.update')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Download CSV' })).toHaveAttribute(
      'href',
      '/api/audit?format=csv',
    );

    const policy = screen.getByRole('form', { name: 'Policy for new keys' });
    const policyBudget = within(policy).getByLabelText('Budget (USD)');
    await userEvent.clear(policyBudget);
    await userEvent.type(policyBudget, '25');
    await userEvent.type(within(policy).getByLabelText('Models'), 'anthropic/*, sim/chat-*');
    await userEvent.click(within(policy).getByRole('button', { name: 'Save policy' }));
    await waitFor(() =>
      expect(requests.find((request) => request.method === 'PUT')?.body).toEqual({
        kind: 'allocated_child',
        limit_usd: 25,
        limit_reset: 'monthly',
        allowed_models: ['anthropic/*', 'sim/chat-*'],
      }),
    );
  });
});

describe('the People page without people', () => {
  it("shows the access token's admin the audit log", async () => {
    mockPageApi({
      'GET /api/session': () => ({
        required: true,
        signed_in: true,
        expires_at: Date.now() + 1000,
      }),
      'GET /api/audit': () => ({ entries: [], fetched_at: Date.now() }),
    });
    renderRoute('/people');
    expect(await screen.findByText('No changes yet')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'People' })).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Your key' })).not.toBeInTheDocument();
  });
});

describe('the sign-in page with an identity provider', () => {
  it('offers the provider, keeps where the person was going, and says why a sign-in failed', async () => {
    mockPageApi({
      'GET /api/session': () => ({ required: true, signed_in: false, expires_at: null, oidc }),
    });
    renderRoute('/sign-in?next=%2Fkeys&oidc_error=The%20identity%20provider%20refused');
    const link = await screen.findByRole('link', { name: 'Sign in with your identity provider' });
    expect(link).toHaveAttribute('href', '/auth/oidc/sign-in?next=%2Fkeys');
    expect(screen.getByRole('alert')).toHaveTextContent('The identity provider refused');
    // The access token form is not offered when the workbench has no access token.
    expect(screen.queryByLabelText('Access token')).not.toBeInTheDocument();
  });
});
