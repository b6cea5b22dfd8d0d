import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { RotationDoneLine, RotationStepLine } from '../../../../contract/workbench-api';
import { renderRoute } from '../../../test/render-app';
import {
  apiError,
  childKeysPath,
  expectHandedOverKeyForgotten,
  makeChildKey,
  mockChildKeysPage,
  ndjsonStream,
  nightly,
} from '../../../test/child-keys.test-kit';

const rotationPath = `${childKeysPath}/key_nightly/rotation`;
const estimate = {
  model: 'sim/echo-mini',
  max_tokens: 1,
  estimated_cost_usd: 0.000004,
};

function step(
  number: number,
  status: RotationStepLine['status'],
  detail: string,
  extra: Partial<RotationStepLine> = {},
): RotationStepLine {
  const names = ['create_replacement', 'update_profile', 'verify', 'revoke_old'] as const;
  return { step: number, name: names[number - 1]!, status, detail, ...extra };
}

const doneOk: RotationDoneLine = {
  done: true,
  ok: true,
  failed_step: null,
  state: 'The profile uses the new key; the old key is revoked.',
  advice: 'Nothing to do.',
  profile: 'nightly-report',
  profile_key: { id: 'key_nightly2', key: 'sk-gw-…n3w1' },
  old_key: { id: 'key_nightly', revoked: true },
  new_key: { id: 'key_nightly2', key: 'sk-gw-…n3w1', revoked: false },
};

/** The statuses of the four steps, as their badges say them. */
function statuses(dialog: HTMLElement): string[] {
  const list = within(dialog).getByRole('list', { name: 'Rotation steps' });
  return within(list)
    .getAllByRole('listitem')
    .map((item) => item.querySelector('p > span:last-child')?.textContent ?? '');
}

async function openRotation() {
  const table = await screen.findByRole('table', { name: 'Child keys' }, { timeout: 5_000 });
  await userEvent.click(within(table).getByRole('button', { name: 'Rotate nightly-report' }));
  return screen.findByRole('dialog', { name: 'Rotate “nightly-report”' });
}

// The Keys route is lazy: load it once, so no test's first find waits for the import.
beforeAll(async () => {
  await import('../keys-page');
});

describe('Rotate', () => {
  it('shows the cost first, then each step as the stream reports it, then the outcome', async () => {
    const stream = ndjsonStream();
    let keys = [nightly];
    const requests = mockChildKeysPage(() => keys, {
      [`GET ${rotationPath}/estimate`]: () => estimate,
      [`POST ${rotationPath}`]: () => stream.response,
    });
    renderRoute('/keys');
    const dialog = await openRotation();
    expect(dialog).toHaveTextContent('The profile “nightly-report” moves to the new key');
    expect(await within(dialog).findByText('$0.000004')).toBeInTheDocument();
    expect(statuses(dialog)).toEqual(['○Waiting', '○Waiting', '○Waiting', '○Waiting']);
    expect(dialog).toHaveTextContent(
      'Estimated cost: $0.000004 for at most 1 token from sim/echo-mini.',
    );
    expect(requests.some((request) => request.method === 'POST')).toBe(false);

    await userEvent.click(
      within(dialog).getByRole('button', { name: 'Start rotation (≈ $0.000004)' }),
    );
    await waitFor(() => expect(requests.some((request) => request.method === 'POST')).toBe(true));
    const post = requests.find((request) => request.method === 'POST')!;
    expect(post.body).toEqual({ profile: 'nightly-report', model: 'sim/echo-mini' });
    expect(within(dialog).getByRole('button', { name: 'Rotating…' })).toBeDisabled();
    expect(within(dialog).getByRole('button', { name: 'Close' })).toBeDisabled();

    stream.push(step(1, 'running', 'Creating the replacement key…'));
    await waitFor(() => expect(statuses(dialog)[0]).toBe('◔Running…'));
    stream.push(step(1, 'done', 'Created sk-gw-…n3w1.'));
    stream.push(step(2, 'done', 'The profile “nightly-report” now holds sk-gw-…n3w1.'));
    stream.push(step(3, 'running', 'Sending one request…'));
    await waitFor(() =>
      expect(statuses(dialog)).toEqual(['✓Done', '✓Done', '◔Running…', '○Waiting']),
    );
    expect(dialog).toHaveTextContent('Created sk-gw-…n3w1.');
    // Mid-flow, Escape does not close it.
    await userEvent.keyboard('{Escape}');
    expect(screen.getByRole('dialog')).toBeInTheDocument();

    stream.push(
      step(
        3,
        'done',
        'The gateway served it with the new key (trace 0123456789abcdef-AMS), for $0.000003.',
        {
          cf_ray: '0123456789abcdef-AMS',
          cost_usd: 0.000003,
        },
      ),
    );
    stream.push(step(4, 'done', 'Revoked sk-gw-…n1g7.'));
    keys = [makeChildKey({ ...nightly, id: 'key_nightly2', key: 'sk-gw-…n3w1' })];
    stream.push(doneOk);
    stream.end();

    const outcome = await within(dialog).findByRole('status', { name: '' });
    await waitFor(() =>
      expect(outcome).toHaveTextContent('Rotation complete: all four steps are done.'),
    );
    expect(statuses(dialog)).toEqual(['✓Done', '✓Done', '✓Done', '✓Done']);
    expect(outcome).toHaveTextContent('The profile uses the new key; the old key is revoked.');
    expect(dialog).toHaveTextContent('(trace 0123456789abcdef-AMS), for $0.000003.');
    expect(
      within(dialog).queryByRole('button', { name: /Start rotation/ }),
    ).not.toBeInTheDocument();

    // The dialog stays until closed, though the old key's row is gone; then the table shows the
    // new key, and the focus is back on the section (the Rotate button went with its row).
    await waitFor(() =>
      expect(requests.filter((request) => request.url.pathname === childKeysPath).length).toBe(2),
    );
    expect(screen.getByRole('dialog')).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    const table = screen.getByRole('table', { name: 'Child keys' });
    await waitFor(() => expect(table).toHaveTextContent('sk-gw-…n3w1'));
  });

  it('says plainly which step failed, that it stopped, the keys’ state and what to do', async () => {
    const stream = ndjsonStream();
    mockChildKeysPage(() => [nightly], {
      [`GET ${rotationPath}/estimate`]: () => estimate,
      [`POST ${rotationPath}`]: () => stream.response,
    });
    renderRoute('/keys');
    const dialog = await openRotation();
    await userEvent.click(await within(dialog).findByRole('button', { name: /Start rotation/ }));
    stream.push(step(1, 'done', 'Created sk-gw-…n3w1.'));
    stream.push(step(2, 'done', 'The profile now holds sk-gw-…n3w1.'));
    stream.push(step(3, 'running', 'Sending one request…'));
    stream.push(step(3, 'failed', 'The new key got HTTP 402: its parent is depleted.'));
    stream.push({
      ...doneOk,
      ok: false,
      failed_step: 3,
      state:
        'The profile is back on the old key sk-gw-…n1g7, which still works; the replacement was revoked.',
      advice: 'Add balance to the account, then rotate again.',
      profile_key: { id: 'key_nightly', key: 'sk-gw-…n1g7' },
      old_key: { id: 'key_nightly', revoked: false },
      new_key: { id: 'key_nightly2', key: 'sk-gw-…n3w1', revoked: true },
    });
    stream.end();

    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent(
      'The rotation failed at step 3: Verify one request. It stopped there.',
    );
    expect(alert).toHaveTextContent(
      'State of the keys: The profile is back on the old key sk-gw-…n1g7, which still works',
    );
    expect(alert).toHaveTextContent('What to do: Add balance to the account, then rotate again.');
    expect(statuses(dialog)).toEqual(['✓Done', '✓Done', '✕Failed', '–Not run']);
    expect(dialog).toHaveTextContent('The new key got HTTP 402: its parent is depleted.');
    expect(within(dialog).getByRole('button', { name: 'Close' })).toBeEnabled();
  });

  it('shows a refusal before step 1 as an error, and a stream that breaks off as unfinished', async () => {
    let refuse = true;
    const stream = ndjsonStream();
    mockChildKeysPage(() => [nightly], {
      [`GET ${rotationPath}/estimate`]: () => estimate,
      [`POST ${rotationPath}`]: () =>
        refuse
          ? apiError(409, 'The keys store is read-only.', {
              advice: 'Make data/workbench-keys.json writable.',
            })
          : stream.response,
    });
    renderRoute('/keys');
    let dialog = await openRotation();
    await userEvent.click(await within(dialog).findByRole('button', { name: /Start rotation/ }));
    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent('Starting the rotation failed.');
    expect(alert).toHaveTextContent('Make data/workbench-keys.json writable.');
    expect(statuses(dialog)).toEqual(['–Not run', '–Not run', '–Not run', '–Not run']);

    await userEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
    refuse = false;
    dialog = await openRotation();
    expect(statuses(dialog)).toEqual(['○Waiting', '○Waiting', '○Waiting', '○Waiting']);
    await userEvent.click(await within(dialog).findByRole('button', { name: /Start rotation/ }));
    stream.push(step(1, 'running', 'Creating the replacement key…'));
    stream.push('not json');
    stream.end();
    expect(
      await within(dialog).findByText(
        'The rotation’s progress stopped before it said it was done.',
      ),
    ).toBeInTheDocument();
    expect(statuses(dialog)).toEqual(['✕Failed', '–Not run', '–Not run', '–Not run']);
    expect(dialog).toHaveTextContent('1 line of the progress could not be read.');
  });

  it('hands the new key of a key no profile holds over, once confirmed, and forgets it on close', async () => {
    // Made at run time: no key-like literal is committed.
    const secret = `sk-${crypto.randomUUID().replaceAll('-', '')}`;
    const given = makeChildKey({ id: 'key_given', name: 'given', key: 'sk-…give' });
    const rotated = { ...given, key: 'sk-…n3w2' };
    let keys = [given];
    const requests = mockChildKeysPage(() => keys, {
      [`POST ${childKeysPath}/key_given/rotation/hand-over`]: () => {
        keys = [rotated];
        return { key: rotated, secret };
      },
    });
    const user = userEvent.setup();
    const { queryClient } = renderRoute('/keys');
    const table = await screen.findByRole('table', { name: 'Child keys' }, { timeout: 5_000 });
    // Offered though no profile holds the key: the new key is handed over instead.
    await user.click(within(table).getByRole('button', { name: 'Rotate given' }));
    const dialog = await screen.findByRole('dialog', { name: 'Rotate “given”' });
    expect(dialog).toHaveTextContent('the old one stops working at once');
    expect(dialog).toHaveTextContent('shown once here, with Copy, and kept nowhere');
    expect(within(dialog).queryByRole('list', { name: 'Rotation steps' })).not.toBeInTheDocument();

    // Not confirmed: nothing is sent, and the confirmation says why.
    const confirmation = within(dialog).getByRole('checkbox', {
      name: 'Show the key once; the workbench keeps no copy',
    });
    await user.click(within(dialog).getByRole('button', { name: 'Rotate and hand over' }));
    expect(confirmation).toHaveAccessibleDescription(/to hand the new key over/);
    expect(requests.some((request) => request.method === 'POST')).toBe(false);

    await user.click(confirmation);
    await user.click(within(dialog).getByRole('button', { name: 'Rotate and hand over' }));
    const summary = await within(dialog).findByRole('region', { name: 'Handed-over key' });
    expect(summary).toHaveTextContent('Rotated “given”. Copy its new key now.');
    expect(within(summary).getByLabelText('Full key')).toHaveTextContent(secret);
    expect(document.body.innerHTML.split(secret)).toHaveLength(2);
    const post = requests.find((request) => request.method === 'POST');
    expect(post?.url.pathname).toBe(`${childKeysPath}/key_given/rotation/hand-over`);
    expect(post?.body).toEqual({ show_once: true });
    // Not copied yet: a click beside the dialog asks first instead of losing the key.
    const overlay = document.querySelector('[data-state="open"].fixed.inset-0')!;
    fireEvent.pointerDown(overlay);
    fireEvent.pointerUp(overlay);
    fireEvent.click(overlay);
    const question = await screen.findByRole('alertdialog', { name: 'Close without copying?' });
    await user.click(within(question).getByRole('button', { name: 'Keep it open' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(within(summary).getByLabelText('Full key')).toHaveTextContent(secret);
    await user.click(within(summary).getByRole('button', { name: 'Copy the full key' }));
    expect(await navigator.clipboard.readText()).toBe(secret);

    // Closed, it is gone: not on the page, not in the page's caches; the table has the new mask.
    await user.click(within(dialog).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await expectHandedOverKeyForgotten(queryClient, secret);
    await waitFor(() => expect(table).toHaveTextContent('sk-…n3w2'));
  });
});
