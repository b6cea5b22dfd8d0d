// @vitest-environment jsdom
// (happy-dom gives inline elements no display, so accessible descriptions gain spaces)
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ChildKey, ChildKeyEvent, Profile } from '../../../../contract/workbench-api';
import { demoProfiles } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render-app';
import {
  apiError,
  childKeysPath,
  expectHandedOverKeyForgotten,
  makeChildKey,
  mockChildKeysPage,
  nightly,
  sharedBot,
} from '../../../test/child-keys.test-kit';
import { toDateTimeLocal } from '../child-key-form';

async function childKeysTable() {
  return screen.findByRole('table', { name: 'Child keys' }, { timeout: 5_000 });
}

function rowOf(table: HTMLElement, name: string): HTMLElement {
  return within(table).getByRole('rowheader', { name }).closest('tr')!;
}

// The Keys route is lazy: load it once, so no test's first find waits for the import.
beforeAll(async () => {
  await import('../keys-page');
});

describe('Child keys on the Keys page', () => {
  it('lists an account’s children: name, masked key, kind, state, remaining, limit, expiry and holder', async () => {
    mockChildKeysPage(() => [nightly, sharedBot]);
    renderRoute('/keys');
    const table = await childKeysTable();
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((header) => header.textContent),
    ).toEqual([
      'Name',
      'Key',
      'Kind',
      'State',
      'Remaining',
      'Limit',
      'Expires',
      'Secret held by',
      'Actions',
    ]);

    const allocated = rowOf(table, 'nightly-report');
    expect(allocated).toHaveTextContent('sk-gw-…n1g7');
    expect(allocated).toHaveTextContent('Allocated');
    // The state is real text: copyable, and in the page's text for Ctrl+F.
    expect(within(allocated).getByText('Active', { exact: true })).toBeInTheDocument();
    expect(allocated).toHaveTextContent('$3.75');
    expect(allocated).toHaveTextContent('$5.00');
    expect(allocated).toHaveTextContent(/20\d\d-\d\d-\d\d \d\d:\d\d/);
    expect(within(allocated).getByRole('cell', { name: 'nightly-report' })).toBeInTheDocument();
    expect(
      within(allocated).getByRole('button', { name: 'Rotate nightly-report' }),
    ).toBeInTheDocument();

    const shared = rowOf(table, 'chat-bot');
    expect(shared).toHaveTextContent('Shared');
    expect(shared).toHaveTextContent('$7.50account’s');
    expect(shared).toHaveTextContent('never');
    expect(shared).toHaveTextContent('none');
    // No profile holds its secret: it still rotates, its new key handed over (see the Rotate tests).
    expect(within(shared).getByRole('button', { name: 'Rotate chat-bot' })).toBeInTheDocument();
    // The balance panel's "Remaining" and state, found within their region; the table's are
    // real text too, in its header and rows.
    const panel = screen.getByRole('region', { name: 'demo-account' });
    expect(within(panel).getByText('Remaining', { exact: true })).toBeInTheDocument();
    expect(within(panel).getByText('Active', { exact: true })).toBeInTheDocument();
    expect(within(table).getByRole('columnheader', { name: 'Remaining' })).toHaveTextContent(
      'Remaining',
    );
  });

  it('shows a shared child’s own spend beside the account’s balance it draws on', async () => {
    const requests = mockChildKeysPage(() => [nightly, sharedBot], {
      'GET /api/activity': (request) => ({
        profile: 'demo-account',
        days: 30,
        from: '2026-11-03',
        to: '2026-12-02',
        data: [],
        totals: {
          requests: 3,
          prompt_tokens: 10,
          completion_tokens: 5,
          cost_usd: request.url.searchParams.get('key_id') === 'key_bot' ? 0.421234567 : 9,
        },
        fetched_at: 1,
      }),
    });
    renderRoute('/keys');
    const shared = rowOf(await childKeysTable(), 'chat-bot');
    const own = await within(shared).findByText('$0.42 own, 30 d');
    expect(own).toHaveAttribute(
      'title',
      '$0.421234567 spent by this key itself in the last 30 days',
    );
    expect(shared).toHaveTextContent('$7.50account’s');
    // One key's records each: the shared child's (the page's balance chart asks for all of them).
    const perKey = requests
      .filter((request) => request.url.pathname === '/api/activity')
      .map((request) => request.url.searchParams.get('key_id'))
      .filter((keyId) => keyId !== null);
    expect(perKey).toEqual(['key_bot']);
  });

  it('on a phone, puts a row’s actions in one 44 px menu, Revoke last, each opening its dialog', async () => {
    const user = userEvent.setup();
    mockChildKeysPage(() => [nightly, sharedBot]);
    renderRoute('/keys');
    const row = rowOf(await childKeysTable(), 'nightly-report');
    // The desktop buttons and the phone's menu are both in the page; CSS shows one of them.
    const trigger = within(row).getByRole('button', { name: 'Actions for nightly-report' });
    expect(trigger.parentElement).toHaveClass('sm:hidden');
    expect(
      within(row)
        .getByRole('button', { name: 'Revoke nightly-report' })
        .closest('.max-sm\\:hidden'),
    ).not.toBeNull();
    expect(trigger).toHaveClass('min-h-11');

    await user.click(trigger);
    const menu = await screen.findByRole('menu');
    const items = within(menu).getAllByRole('menuitem');
    expect(items.map((item) => item.textContent)).toEqual([
      'Set limit & expiry',
      'Disable',
      'History',
      'Rotate',
      'Revoke',
    ]);
    for (const item of items) expect(item).toHaveClass('min-h-11');

    await user.click(items.at(-1)!);
    expect(
      await screen.findByRole('alertdialog', { name: 'Revoke “nightly-report”?' }),
    ).toBeInTheDocument();
  });

  it('is not shown for a child profile', async () => {
    mockChildKeysPage(() => [nightly]);
    renderRoute('/keys?profile=demo-allocated-child');
    await screen.findByRole('region', { name: 'demo-allocated-child' });
    expect(screen.queryByRole('heading', { name: 'Child keys' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Create child key' })).not.toBeInTheDocument();
  });

  it('says how to begin when there are none, and why creating is off without a keys store', async () => {
    mockChildKeysPage(() => [], {
      [`GET ${childKeysPath}`]: () => ({
        profile: 'demo-account',
        keys: [],
        keys_store: null,
        keys_store_advice: 'Set WORKBENCH_KEYS_FILE.',
        fetched_at: 1,
      }),
    });
    renderRoute('/keys');
    expect(await screen.findByText('No child keys yet')).toBeInTheDocument();
    expect(screen.getByText(/nowhere to keep a new secret/)).toHaveTextContent(
      'Set WORKBENCH_KEYS_FILE.',
    );
    expect(screen.getByRole('button', { name: 'Create child key' })).toBeDisabled();
  });

  it('checks the create form before sending, then shows the new key masked, its profile and where the secret is', async () => {
    let keys: ChildKey[] = [];
    let profiles: Profile[] = demoProfiles;
    const created = makeChildKey({
      id: 'key_ci',
      kind: 'shared_child',
      name: 'ci-runner',
      key: 'sk-gw-…c1c1',
      limit_usd: null,
      profile: 'ci-runner',
    });
    const requests = mockChildKeysPage(() => keys, {
      'GET /api/profiles': () => ({ profiles }),
      [`POST ${childKeysPath}`]: () => {
        keys = [created];
        profiles = [
          ...demoProfiles,
          { name: 'ci-runner', masked_key: 'sk-gw-…c1c1', identity: 'shared_child' },
        ];
        return {
          key: created,
          profile: { name: 'ci-runner', masked_key: 'sk-gw-…c1c1', identity: 'shared_child' },
          stored_in: '/srv/workbench/data/workbench-keys.json',
        };
      },
    });
    renderRoute('/keys');
    await userEvent.click(await screen.findByRole('button', { name: 'Create child key' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create child key' });

    // Nothing filled in: each field says what to write, and nothing is sent.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(within(dialog).getByRole('textbox', { name: 'Name' })).toHaveAccessibleDescription(
      /Give the key a name/,
    );
    expect(
      within(dialog).getByRole('textbox', { name: 'Limit (USD)' }),
    ).toHaveAccessibleDescription(/Give the key a limit in USD/);
    // A decimal comma is read as the catalog reads it; "1,000" could be either, so it is asked.
    await userEvent.type(within(dialog).getByRole('textbox', { name: 'Limit (USD)' }), '1,000');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(
      within(dialog).getByRole('textbox', { name: 'Limit (USD)' }),
    ).toHaveAccessibleDescription(/could mean 1000 or 1.000/);
    const expires = within(dialog).getByLabelText('Expires');
    fireEvent.change(expires, { target: { value: toDateTimeLocal(1_000_000_000) } });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(expires).toHaveAccessibleDescription(/must be in the future/);
    expect(expires).toHaveAttribute('aria-invalid', 'true');
    expect(requests.some((request) => request.method === 'POST')).toBe(false);

    // A shared child takes no limit.
    await userEvent.click(within(dialog).getByRole('radio', { name: 'Shared' }));
    expect(within(dialog).queryByRole('textbox', { name: 'Limit (USD)' })).not.toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'No expiry' }));
    await userEvent.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'ci-runner');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Create' }));

    const summary = await within(dialog).findByRole('status');
    expect(summary).toHaveTextContent('Created “ci-runner”.');
    expect(summary).toHaveTextContent('sk-gw-…c1c1');
    expect(summary).toHaveTextContent('Profileci-runner');
    expect(summary).toHaveTextContent('/srv/workbench/data/workbench-keys.json');
    expect(summary).toHaveTextContent(
      'The full key is kept by the workbench server; it is never shown.',
    );
    expect(
      within(summary).getByRole('link', { name: 'Use “ci-runner” in the playground' }),
    ).toHaveAttribute('href', '/playground?profile=ci-runner');
    const post = requests.find((request) => request.method === 'POST');
    expect(post?.body).toEqual({ kind: 'shared_child', name: 'ci-runner' });
    expect(post?.headers.get('Content-Type')).toBe('application/json');

    // The new profile is in the Key picker at once, and its row in the table.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
    await userEvent.click(screen.getByRole('combobox', { name: 'Key' }));
    expect(await screen.findByRole('option', { name: /ci-runner/ })).toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    expect(rowOf(await childKeysTable(), 'ci-runner')).toHaveTextContent('sk-gw-…c1c1');
  });

  it('hands a key over only once confirmed: shown once in full with Copy, gone after closing', async () => {
    // Made at run time: no key-like literal is committed.
    const secret = `sk-${crypto.randomUUID().replaceAll('-', '')}`;
    const handed = makeChildKey({ id: 'key_given', name: 'given', key: 'sk-…give' });
    const requests = mockChildKeysPage(() => [], {
      [`POST ${childKeysPath}/hand-over`]: () => ({ key: handed, secret }),
    });
    const user = userEvent.setup();
    const { queryClient } = renderRoute('/keys');
    await user.click(await screen.findByRole('button', { name: 'Create child key' }));
    let dialog = await screen.findByRole('dialog', { name: 'Create child key' });
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'given');
    await user.type(within(dialog).getByRole('textbox', { name: 'Limit (USD)' }), '2');
    await user.click(within(dialog).getByRole('radio', { name: 'Hand over' }));
    // No profile holds a handed-over key: there is no profile to name.
    expect(
      within(dialog).queryByRole('textbox', { name: 'Profile name (optional)' }),
    ).not.toBeInTheDocument();

    // Not confirmed: nothing is sent, and the confirmation says why.
    const confirmation = within(dialog).getByRole('checkbox', {
      name: 'Show the key once; the workbench keeps no copy',
    });
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(confirmation).toHaveAccessibleDescription(/to hand the key over/);
    expect(requests.some((request) => request.method === 'POST')).toBe(false);

    await user.click(confirmation);
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    const summary = await within(dialog).findByRole('region', { name: 'Handed-over key' });
    expect(within(summary).getByLabelText('Full key')).toHaveTextContent(secret);
    expect(summary).toHaveTextContent('This is the only time the key is shown.');
    // Shown once on the page: the full key is in one place only.
    expect(document.body.innerHTML.split(secret)).toHaveLength(2);
    const post = requests.find((request) => request.method === 'POST');
    expect(post?.url.pathname).toBe(`${childKeysPath}/hand-over`);
    expect(post?.body).toEqual({
      kind: 'allocated_child',
      name: 'given',
      limit_usd: 2,
      show_once: true,
    });

    // Not copied yet: Esc asks first, and "Keep it open" keeps the key on screen.
    await user.keyboard('{Escape}');
    const question = await screen.findByRole('alertdialog', { name: 'Close without copying?' });
    await user.click(within(question).getByRole('button', { name: 'Keep it open' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(within(summary).getByLabelText('Full key')).toHaveTextContent(secret);

    await user.click(within(summary).getByRole('button', { name: 'Copy the full key' }));
    expect(await navigator.clipboard.readText()).toBe(secret);
    // Copied, Esc closes without asking.
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();

    // Closed, it is gone: not on the page, not in the page's caches, not when the dialog reopens.
    await expectHandedOverKeyForgotten(queryClient, secret);
    await user.click(screen.getByRole('button', { name: 'Create child key' }));
    dialog = await screen.findByRole('dialog', { name: 'Create child key' });
    expect(within(dialog).getByRole('radio', { name: 'Keep in the workbench' })).toBeChecked();
    expect(document.body.innerHTML).not.toContain(secret);
  });

  it('sends an allocated child’s limit and expiry, and shows the BFF’s refusal with its field', async () => {
    const requests = mockChildKeysPage(() => [], {
      [`POST ${childKeysPath}`]: () =>
        apiError(400, 'limit_usd is more than the account has left ($2.00).', {
          field: 'limit_usd',
        }),
    });
    renderRoute('/keys');
    await userEvent.click(await screen.findByRole('button', { name: 'Create child key' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.type(within(dialog).getByRole('textbox', { name: 'Name' }), '  nightly  ');
    await userEvent.type(within(dialog).getByRole('textbox', { name: 'Limit (USD)' }), '$12.5');
    const inAWeek = Math.floor(Date.now() / 1000 / 60) * 60 + 7 * 86_400;
    fireEvent.change(within(dialog).getByLabelText('Expires'), {
      target: { value: toDateTimeLocal(inAWeek) },
    });
    await userEvent.type(
      within(dialog).getByRole('textbox', { name: 'Profile name (optional)' }),
      'nightly profile',
    );
    await userEvent.click(within(dialog).getByRole('button', { name: 'Create' }));
    // The refusal names the limit: it is shown at that field, under the form's label.
    const limit = within(dialog).getByRole('textbox', { name: 'Limit (USD)' });
    await waitFor(() =>
      expect(limit).toHaveAccessibleDescription(
        /“Limit \(USD\)” is more than the account has left \(\$2\.00\)/,
      ),
    );
    expect(within(dialog).queryByText(/limit_usd/)).not.toBeInTheDocument();
    expect(requests.find((request) => request.method === 'POST')?.body).toEqual({
      kind: 'allocated_child',
      name: 'nightly',
      limit_usd: 12.5,
      expires_at: inAWeek,
      profile_name: 'nightly profile',
    });

    // A new form error stands alone: the server's message is for the values sent before.
    await userEvent.clear(within(dialog).getByRole('textbox', { name: 'Name' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(within(dialog).getByRole('textbox', { name: 'Name' })).toHaveAccessibleDescription(
      /Give the key a name/,
    );
    expect(within(dialog).queryByText(/more than the account has left/)).not.toBeInTheDocument();
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('a refusal that names no field of the form stays a panel, and goes when the form changes', async () => {
    mockChildKeysPage(() => [], {
      [`POST ${childKeysPath}`]: () => apiError(502, 'The gateway did not answer.'),
    });
    renderRoute('/keys');
    await userEvent.click(await screen.findByRole('button', { name: 'Create child key' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'nightly');
    await userEvent.type(within(dialog).getByRole('textbox', { name: 'Limit (USD)' }), '2');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('did not answer');
    await userEvent.clear(within(dialog).getByRole('textbox', { name: 'Limit (USD)' }));
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('asks before revoking, naming the key by name and masked key, then says what happened to its profile', async () => {
    let keys = [nightly, sharedBot];
    const requests = mockChildKeysPage(() => keys, {
      [`DELETE ${childKeysPath}/key_nightly`]: () => {
        keys = [sharedBot];
        return {
          key: { ...nightly, state: 'revoked', revoked_at: 1_760_000_100 },
          removed_profiles: ['nightly-report'],
          message: 'The profile “nightly-report” was removed with the key.',
        };
      },
    });
    renderRoute('/keys');
    const table = await childKeysTable();
    await userEvent.click(
      within(rowOf(table, 'nightly-report')).getByRole('button', { name: 'Revoke nightly-report' }),
    );
    const confirm = await screen.findByRole('alertdialog', { name: 'Revoke “nightly-report”?' });
    expect(confirm).toHaveAccessibleDescription(/“nightly-report” \(sk-gw-…n1g7\) stops working/);
    expect(confirm).toHaveTextContent('cannot be undone');
    expect(confirm).toHaveTextContent('profile “nightly-report” that holds its secret is removed');
    expect(requests.some((request) => request.method === 'DELETE')).toBe(false);

    // Cancel keeps the key.
    await userEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(requests.some((request) => request.method === 'DELETE')).toBe(false);

    await userEvent.click(
      within(rowOf(table, 'nightly-report')).getByRole('button', { name: 'Revoke nightly-report' }),
    );
    await userEvent.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Revoke' }),
    );
    expect(await screen.findByText(/was removed with the key/)).toBeInTheDocument();
    const revoke = requests.find((request) => request.method === 'DELETE');
    expect(revoke?.url.pathname).toBe(`${childKeysPath}/key_nightly`);
    expect(revoke?.body).toEqual({});
    expect(revoke?.headers.get('Content-Type')).toBe('application/json');
    await waitFor(() =>
      expect(within(table).queryByRole('rowheader', { name: 'nightly-report' })).toBeNull(),
    );
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
  });

  it('keeps the confirmation open with the reason when revoking fails', async () => {
    mockChildKeysPage(() => [nightly], {
      [`DELETE ${childKeysPath}/key_nightly`]: () =>
        apiError(502, 'Cannot connect to the gateway.', {
          stage: 'connect',
          advice: 'Check that the gateway is running.',
        }),
    });
    renderRoute('/keys');
    await userEvent.click(
      within(rowOf(await childKeysTable(), 'nightly-report')).getByRole('button', {
        name: 'Revoke nightly-report',
      }),
    );
    const confirm = await screen.findByRole('alertdialog');
    await userEvent.click(within(confirm).getByRole('button', { name: 'Revoke' }));
    const alert = await within(confirm).findByRole('alert');
    expect(alert).toHaveTextContent('Revoking “nightly-report” failed.');
    expect(alert).toHaveTextContent('Check that the gateway is running.');
  });

  it('disables a key after asking, and enables it with one click', async () => {
    let keys = [nightly];
    const requests = mockChildKeysPage(() => keys, {
      [`PATCH ${childKeysPath}/key_nightly`]: (request) => {
        const { disabled } = request.body as { disabled: boolean };
        keys = [{ ...nightly, disabled, state: disabled ? 'disabled' : 'active' }];
        return { key: keys[0] };
      },
    });
    renderRoute('/keys');
    const table = await childKeysTable();
    await userEvent.click(within(table).getByRole('button', { name: 'Disable nightly-report' }));
    // Whoever uses the key is refused at once: asked first, nothing sent yet.
    const confirm = await screen.findByRole('alertdialog', { name: 'Disable “nightly-report”?' });
    expect(requests.some((request) => request.method === 'PATCH')).toBe(false);
    await userEvent.click(within(confirm).getByRole('button', { name: 'Disable' }));
    const enable = await within(table).findByRole('button', { name: 'Enable nightly-report' });
    expect(
      within(rowOf(table, 'nightly-report')).getByText('Disabled', { exact: true }),
    ).toBeInTheDocument();
    await userEvent.click(enable);
    await within(table).findByRole('button', { name: 'Disable nightly-report' });
    expect(
      requests.filter((request) => request.method === 'PATCH').map((request) => request.body),
    ).toEqual([{ disabled: true }, { disabled: false }]);
  });

  it('sets a new limit and expiry, sending only what changed', async () => {
    const requests = mockChildKeysPage(() => [nightly, sharedBot], {
      [`PATCH ${childKeysPath}/key_nightly`]: () => ({ key: { ...nightly, limit_usd: 7 } }),
      [`PATCH ${childKeysPath}/key_bot`]: () => ({ key: { ...sharedBot, expires_at: null } }),
    });
    renderRoute('/keys');
    const table = await childKeysTable();
    await userEvent.click(
      within(table).getByRole('button', { name: 'Set limit & expiry of nightly-report' }),
    );
    let dialog = await screen.findByRole('dialog', {
      name: 'Limit and expiry of “nightly-report”',
    });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(within(dialog).getByRole('status')).toHaveTextContent('Nothing changed');
    const limit = within(dialog).getByRole('textbox', { name: 'Limit (USD)' });
    expect(limit).toHaveValue('5.00');
    await userEvent.clear(limit);
    await userEvent.type(limit, '7');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    // A shared child has no limit of its own: only its name and expiry.
    await userEvent.click(within(table).getByRole('button', { name: 'Set expiry of chat-bot' }));
    dialog = await screen.findByRole('dialog', { name: 'Expiry of “chat-bot”' });
    expect(within(dialog).queryByRole('textbox', { name: 'Limit (USD)' })).not.toBeInTheDocument();
    const inADay = Math.floor(Date.now() / 1000 / 60) * 60 + 86_400;
    fireEvent.change(within(dialog).getByLabelText('Expires'), {
      target: { value: toDateTimeLocal(inADay) },
    });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    expect(
      requests
        .filter((request) => request.method === 'PATCH')
        .map((request) => [request.url.pathname, request.body]),
    ).toEqual([
      [`${childKeysPath}/key_nightly`, { limit_usd: 7 }],
      [`${childKeysPath}/key_bot`, { expires_at: inADay }],
    ]);
  });

  it('shows a key’s history in plain words: who, when, and the values before and after', async () => {
    const events: ChildKeyEvent[] = [
      {
        id: 3,
        key_id: 'key_nightly',
        actor: 'key_account',
        action: 'update',
        changes: { limit_usd: { old: 5, new: 7 }, expires_at: { old: null, new: 1_893_456_000 } },
        note: null,
        created_at: 1_760_000_200,
      },
      {
        id: 2,
        key_id: 'key_nightly',
        actor: 'cli',
        action: 'disable',
        changes: { disabled: { old: false, new: true } },
        note: 'paused for the audit',
        created_at: 1_760_000_100,
      },
      {
        id: 1,
        key_id: 'key_nightly',
        actor: 'key_account',
        action: 'create',
        changes: { name: { old: null, new: 'nightly-report' }, limit_usd: { old: null, new: 5 } },
        note: null,
        created_at: 1_760_000_000,
      },
    ];
    const requests = mockChildKeysPage(() => [nightly], {
      [`GET ${childKeysPath}/key_nightly/events`]: () => ({ events, next_cursor: null }),
    });
    renderRoute('/keys');
    const table = await childKeysTable();
    await userEvent.click(within(table).getByRole('button', { name: 'History of nightly-report' }));
    const dialog = await screen.findByRole('dialog', { name: 'History of “nightly-report”' });
    const list = await within(dialog).findByRole('list', { name: 'Changes of nightly-report' });
    const items = within(list)
      .getAllByRole('listitem')
      .filter((item) => item.parentElement === list);
    expect(items.map((item) => item.querySelector('p')?.firstChild?.textContent)).toEqual([
      'Changed',
      'Disabled',
      'Created',
    ]);
    expect(items[0]).toHaveTextContent('by the account key');
    expect(items[0]).toHaveTextContent('Limit: $5.00 → to $7.00');
    expect(items[0]).toHaveTextContent(/Expiry: never → to 20\d\d-\d\d-\d\d/);
    expect(items[1]).toHaveTextContent('by the gateway’s command line');
    expect(items[1]).toHaveTextContent('Disabled: no → to yes');
    expect(items[1]).toHaveTextContent('“paused for the audit”');
    expect(items[2]).toHaveTextContent('Name: “nightly-report”');
    expect(items[2]).toHaveTextContent('Limit: $5.00');
    expect(
      requests
        .find((request) => request.url.pathname.endsWith('/events'))
        ?.url.searchParams.get('limit'),
    ).toBe('50');
  });
});
