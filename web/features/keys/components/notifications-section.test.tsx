import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { formatDateTime } from '../../../lib/format';
import {
  webhookEventTypes,
  type Webhook,
  type WebhookDelivery,
} from '../../../../contract/webhooks';
import { jsonResponse } from '../../../test/render-app';
import { renderRoute } from '../../../test/render-app';
import { apiError, mockChildKeysPage } from '../../../test/child-keys.test-kit';

const webhooksPath = '/api/profiles/demo-account/webhooks';
const secret = 'whsec_dGVzdC1zZWNyZXQtb2YtdGhpcy1lbmRwb2ludA==';

function makeWebhook(overrides: Partial<Webhook> & { id: string }): Webhook {
  return {
    object: 'webhook',
    account_id: 'key_account',
    url: 'https://hooks.example.com/gateway',
    events: ['key.balance_low', 'key.depleted'],
    description: null,
    balance_low_usd: null,
    balance_low_percent: null,
    expiring_soon_seconds: 3 * 86_400,
    key_ids: null,
    status: 'active',
    disabled_reason: null,
    consecutive_failures: 0,
    created_at: 1_800_000_000,
    updated_at: 1_800_000_000,
    ...overrides,
  };
}

function makeDelivery(overrides: Partial<WebhookDelivery> = {}): WebhookDelivery {
  return {
    object: 'webhook_delivery',
    id: 'msg_1',
    webhook_id: 'wh_1',
    event_type: 'webhook.test',
    status: 'delivered',
    attempts: 1,
    response_status: 200,
    latency_ms: 12,
    error: null,
    created_at: 1_800_000_000,
    last_attempt_at: 1_800_000_000,
    next_attempt_at: null,
    payload: { type: 'webhook.test' },
    ...overrides,
  };
}

const answer = (webhooks: Webhook[]) => ({ profile: 'demo-account', webhooks, fetched_at: 1 });

async function notifications() {
  return screen.findByRole('region', { name: 'Notifications' }, { timeout: 5_000 });
}

beforeAll(async () => {
  await import('../keys-page');
});

describe('Notifications on the Keys page', () => {
  it('lists endpoints with their events and status, a stopped one with its reason', async () => {
    mockChildKeysPage(() => [], {
      [`GET ${webhooksPath}`]: () =>
        answer([
          makeWebhook({ id: 'wh_1' }),
          makeWebhook({
            id: 'wh_2',
            url: 'https://down.example.com/hook',
            status: 'disabled',
            disabled_reason: '20 deliveries failed in a row',
          }),
        ]),
    });
    renderRoute('/keys');
    const section = await notifications();
    const first = await within(section).findByRole('listitem', {
      name: 'https://hooks.example.com/gateway',
    });
    expect(first).toHaveTextContent('Active');
    expect(first).toHaveTextContent('Balance low, Balance used up');
    expect(within(first).getByRole('button', { name: 'Pause' })).toBeInTheDocument();
    const stopped = within(section).getByRole('listitem', {
      name: 'https://down.example.com/hook',
    });
    expect(stopped).toHaveTextContent('Stopped');
    expect(stopped).toHaveTextContent('20 deliveries failed in a row');
    expect(within(stopped).getByRole('button', { name: 'Resume' })).toBeInTheDocument();
  });

  it('is not shown for a child profile', async () => {
    const requests = mockChildKeysPage(() => []);
    renderRoute('/keys?profile=demo-allocated-child');
    await screen.findByRole('region', { name: 'demo-allocated-child' }, { timeout: 5_000 });
    expect(screen.queryByRole('region', { name: 'Notifications' })).not.toBeInTheDocument();
    expect(requests.some((request) => request.url.pathname.endsWith('/webhooks'))).toBe(false);
  });

  it('adds an endpoint with the default events, checks the form, and shows the secret once', async () => {
    const user = userEvent.setup();
    let webhooks: Webhook[] = [];
    const requests = mockChildKeysPage(() => [], {
      [`GET ${webhooksPath}`]: () => answer(webhooks),
      [`POST ${webhooksPath}`]: (request) => {
        const body = request.body as { url: string; events: Webhook['events'] };
        const webhook = makeWebhook({ id: 'wh_new', url: body.url, events: body.events });
        webhooks = [webhook];
        return jsonResponse(201, { webhook, secret });
      },
    });
    renderRoute('/keys');
    const section = await notifications();
    await user.click(within(section).getByRole('button', { name: 'Add endpoint' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add endpoint' });
    // The four money-and-time events are ticked at first; the other seven are not.
    expect(within(dialog).getAllByRole('checkbox')).toHaveLength(webhookEventTypes.length);
    expect(
      within(dialog)
        .getAllByRole('checkbox', { checked: true })
        .map((box) => box.closest('label')?.textContent),
    ).toEqual([
      'Balance lowkey.balance_low',
      'Balance used upkey.depleted',
      'Expiring soonkey.expiring_soon',
      'Expiredkey.expired',
    ]);

    await user.click(within(dialog).getByRole('button', { name: 'Add endpoint' }));
    expect(within(dialog).getByRole('textbox', { name: 'URL' })).toHaveAccessibleDescription(
      /beginning with https:\/\//,
    );
    expect(requests.some((request) => request.method === 'POST')).toBe(false);

    await user.type(
      within(dialog).getByRole('textbox', { name: 'URL' }),
      'https://hooks.example.com/a',
    );
    await user.click(within(dialog).getByRole('checkbox', { name: /Key revoked/ }));
    await user.click(within(dialog).getByRole('radio', { name: '% of the limit remaining' }));
    await user.type(within(dialog).getByRole('textbox', { name: 'Threshold (%)' }), '10');
    await user.type(
      within(dialog).getByRole('textbox', { name: 'Expiring soon (days ahead)' }),
      '7',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Add endpoint' }));

    const shown = await within(dialog).findByRole('region', { name: 'Signing secret' });
    expect(shown).toHaveTextContent(secret);
    expect(shown).toHaveTextContent('You will not see this secret again');
    expect(within(shown).getByRole('button', { name: 'Copy the signing secret' })).toBeVisible();
    const sent = requests.find((request) => request.method === 'POST')!;
    expect(sent.body).toEqual({
      url: 'https://hooks.example.com/a',
      events: [
        'key.balance_low',
        'key.depleted',
        'key.expiring_soon',
        'key.expired',
        'key.revoked',
      ],
      balance_low_percent: 10,
      expiring_soon_seconds: 7 * 86_400,
    });

    await user.click(within(dialog).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(document.body).not.toHaveTextContent(secret);
    expect(
      await within(section).findByRole('listitem', { name: 'https://hooks.example.com/a' }),
    ).toBeInTheDocument();
  });

  it('sends a test event and shows what the receiver answered', async () => {
    const user = userEvent.setup();
    mockChildKeysPage(() => [], {
      [`GET ${webhooksPath}`]: () => answer([makeWebhook({ id: 'wh_1' })]),
      [`POST ${webhooksPath}/wh_1/test`]: () => ({
        delivery: makeDelivery({ status: 'pending', response_status: 500, latency_ms: 40 }),
      }),
    });
    renderRoute('/keys');
    const section = await notifications();
    await user.click(await within(section).findByRole('button', { name: 'Send test' }));
    const status = await within(section).findByRole('status');
    expect(status).toHaveTextContent('Retrying');
    expect(status).toHaveTextContent('HTTP 500 in 40 ms');
  });

  it('lists deliveries with status, response, latency and next retry', async () => {
    const user = userEvent.setup();
    mockChildKeysPage(() => [], {
      [`GET ${webhooksPath}`]: () => answer([makeWebhook({ id: 'wh_1' })]),
      [`GET ${webhooksPath}/wh_1/deliveries`]: () => ({
        deliveries: [
          makeDelivery({
            id: 'msg_2',
            event_type: 'key.balance_low',
            status: 'pending',
            response_status: null,
            latency_ms: null,
            error: 'connection refused',
            attempts: 2,
            next_attempt_at: 1_800_000_600,
          }),
          makeDelivery(),
        ],
      }),
    });
    renderRoute('/keys');
    const section = await notifications();
    await user.click(await within(section).findByRole('button', { name: 'Deliveries' }));
    const dialog = await screen.findByRole('dialog', { name: 'Deliveries' });
    const table = await within(dialog).findByRole('table', { name: 'Recent deliveries' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows[0]).toHaveTextContent('key.balance_low');
    expect(rows[0]).toHaveTextContent('Retrying');
    expect(rows[0]).toHaveTextContent('connection refused');
    expect(rows[0]).toHaveTextContent(/20\d\d-\d\d-\d\d \d\d:\d\d/);
    expect(rows[1]).toHaveTextContent('Delivered');
    expect(rows[1]).toHaveTextContent('HTTP 200');
    expect(rows[1]).toHaveTextContent('12 ms');
    // Each try's time, and the body that was sent.
    expect(rows[1]).toHaveTextContent(formatDateTime(makeDelivery().last_attempt_at!, 'seconds'));
    await user.click(within(rows[1]!).getByText('Request body'));
    expect(rows[1]).toHaveTextContent('"type": "webhook.test"');
  });

  it('edits an endpoint in place, keeping its secret, and shows its threshold', async () => {
    const user = userEvent.setup();
    let webhooks = [makeWebhook({ id: 'wh_1', balance_low_usd: 1 })];
    const requests = mockChildKeysPage(() => [], {
      [`GET ${webhooksPath}`]: () => answer(webhooks),
      [`PATCH ${webhooksPath}/wh_1`]: () => {
        webhooks = [makeWebhook({ id: 'wh_1', balance_low_percent: 10 })];
        return { webhook: webhooks[0] };
      },
    });
    renderRoute('/keys');
    const section = await notifications();
    expect(
      await within(section).findByText('Balance low fires below $1.00 remaining.'),
    ).toBeVisible();
    await user.click(
      within(section).getByRole('button', { name: 'Edit https://hooks.example.com/gateway' }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Edit endpoint' });
    expect(within(dialog).getByRole('textbox', { name: 'URL' })).toHaveAttribute('readonly');
    expect(within(dialog).getByRole('textbox', { name: 'Threshold (USD)' })).toHaveValue('1');
    await user.click(within(dialog).getByRole('radio', { name: '% of the limit remaining' }));
    const threshold = within(dialog).getByRole('textbox', { name: 'Threshold (%)' });
    await user.clear(threshold);
    await user.type(threshold, '10');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    // A PATCH: the endpoint and its secret stay; the other unit is cleared.
    expect(requests.find((request) => request.method === 'PATCH')?.body).toEqual({
      events: ['key.balance_low', 'key.depleted'],
      balance_low_usd: null,
      balance_low_percent: 10,
      expiring_soon_seconds: 3 * 86_400,
    });
    expect(requests.some((request) => request.method === 'POST')).toBe(false);
    expect(
      await within(section).findByText('Balance low fires below 10% of the limit remaining.'),
    ).toBeVisible();
  });

  it('pauses, and deletes after asking, passing a refusal on', async () => {
    const user = userEvent.setup();
    let webhooks = [makeWebhook({ id: 'wh_1' })];
    const requests = mockChildKeysPage(() => [], {
      [`GET ${webhooksPath}`]: () => answer(webhooks),
      [`PATCH ${webhooksPath}/wh_1`]: () => {
        webhooks = [makeWebhook({ id: 'wh_1', status: 'paused' })];
        return { webhook: webhooks[0] };
      },
      [`DELETE ${webhooksPath}/wh_1`]: () => apiError(404, 'No such webhook endpoint.'),
    });
    renderRoute('/keys');
    const section = await notifications();
    await user.click(await within(section).findByRole('button', { name: 'Pause' }));
    expect(await within(section).findByRole('button', { name: 'Resume' })).toBeInTheDocument();
    expect(requests.find((request) => request.method === 'PATCH')?.body).toEqual({ paused: true });

    await user.click(
      within(section).getByRole('button', {
        name: 'Delete the endpoint https://hooks.example.com/gateway',
      }),
    );
    const confirm = await screen.findByRole('alertdialog', { name: 'Delete this endpoint?' });
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));
    expect(await within(confirm).findByRole('alert')).toHaveTextContent(
      'No such webhook endpoint.',
    );
  });
});
