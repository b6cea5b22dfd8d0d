import { useState } from 'react';
import type { Webhook, WebhookDelivery } from '../../../../contract/webhooks';
import { Badge, type BadgeTone } from '../../../components/badge';
import { Button } from '../../../components/button';
import { ErrorPanel } from '../../../components/error-panel';
import { EmptyState, LoadingState } from '../../../components/states';
import { useChangeWebhook } from '../api/change-webhook';
import { useTestWebhook } from '../api/webhook-deliveries';
import { useWebhooks } from '../api/webhooks';
import { describeThreshold, webhookEventLabels } from '../webhook-form';
import { AddWebhookDialog, EditWebhookDialog } from './add-webhook-dialog';
import { DeleteWebhookDialog } from './delete-webhook-dialog';
import {
  DeliveryStatusBadge,
  WebhookDeliveriesDialog,
  deliveryOutcome,
} from './webhook-deliveries-dialog';

const statusTones: Record<Webhook['status'], BadgeTone> = {
  active: 'green',
  paused: 'neutral',
  disabled: 'red',
};
const statusLabels: Record<Webhook['status'], string> = {
  active: 'Active',
  paused: 'Paused',
  disabled: 'Stopped',
};

/** The last test's outcome for one endpoint, or its failure. */
type TestOutcome = { id: string; delivery: WebhookDelivery } | { id: string; error: unknown };

function WebhookItem({
  account,
  webhook,
  test,
  onTest,
  testing,
  onDeliveries,
}: {
  account: string;
  webhook: Webhook;
  test: TestOutcome | null;
  onTest(): void;
  testing: boolean;
  onDeliveries(): void;
}) {
  const change = useChangeWebhook(account);
  const paused = webhook.status !== 'active';
  return (
    <li
      aria-label={webhook.url}
      className="flex flex-col gap-2 rounded-md border border-zinc-200 p-3 text-sm dark:border-zinc-800"
    >
      <div className="flex flex-wrap items-center gap-2">
        <span className="min-w-0 font-mono text-xs [overflow-wrap:anywhere]">{webhook.url}</span>
        <Badge tone={statusTones[webhook.status]}>{statusLabels[webhook.status]}</Badge>
      </div>
      {webhook.status === 'disabled' && (
        <p className="text-sm text-red-800 dark:text-red-300">
          The gateway stopped sending
          {webhook.disabled_reason ? `: ${webhook.disabled_reason}` : ''}. Resume to send again.
        </p>
      )}
      <p className="text-xs text-zinc-700 dark:text-zinc-300">
        {webhook.events.map((event) => webhookEventLabels[event]).join(', ')}
      </p>
      {webhook.events.includes('key.balance_low') && (
        <p className="text-xs text-zinc-600 dark:text-zinc-400">
          Balance low fires {describeThreshold(webhook)}.
        </p>
      )}
      <div className="flex flex-wrap items-center gap-1">
        <Button size="small" onClick={onTest} disabled={testing}>
          {testing ? 'Sending…' : 'Send test'}
        </Button>
        <Button size="small" variant="ghost" onClick={onDeliveries}>
          Deliveries
        </Button>
        <EditWebhookDialog account={account} webhook={webhook} />
        <Button
          size="small"
          variant="ghost"
          disabled={change.isPending}
          onClick={() => change.mutate({ id: webhook.id, change: { paused: !paused } })}
        >
          {paused ? 'Resume' : 'Pause'}
        </Button>
        <DeleteWebhookDialog account={account} webhook={webhook} />
      </div>
      {test && 'delivery' in test && (
        <p role="status" className="flex flex-wrap items-center gap-2 text-xs">
          Test event: <DeliveryStatusBadge delivery={test.delivery} />
          {deliveryOutcome(test.delivery)}
        </p>
      )}
      {test && 'error' in test && <ErrorPanel what="Sending the test event" error={test.error} />}
      {change.isError && (
        <ErrorPanel
          what={paused ? 'Resuming the endpoint' : 'Pausing the endpoint'}
          error={change.error}
        />
      )}
    </li>
  );
}

/**
 * An account profile's notification endpoints (webhooks): the gateway sends them signed events
 * about this account's keys. Each is added, tested, paused, resumed and deleted here.
 */
export function NotificationsSection({ account }: { account: string }) {
  const webhooks = useWebhooks(account);
  const sendTest = useTestWebhook(account);
  const [test, setTest] = useState<TestOutcome | null>(null);
  const [showing, setShowing] = useState<Webhook | null>(null);

  function runTest(id: string) {
    setTest(null);
    sendTest.mutate(id, {
      onSuccess: (result) => setTest({ id, delivery: result.delivery }),
      onError: (error) => setTest({ id, error }),
    });
  }

  const data = webhooks.data;
  return (
    <section aria-labelledby="notifications-heading" className="flex flex-col gap-2">
      <div className="flex flex-wrap items-end justify-between gap-2">
        <div className="min-w-0">
          <h2 id="notifications-heading" className="text-base font-semibold">
            Notifications
          </h2>
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            Endpoints the gateway calls when a key of “{account}” runs low, expires or changes.
          </p>
        </div>
        <AddWebhookDialog account={account} />
      </div>
      {webhooks.isError && (
        <ErrorPanel
          what="Loading the notification endpoints"
          error={webhooks.error}
          onRetry={() => void webhooks.refetch()}
        />
      )}
      {webhooks.isPending ? (
        <LoadingState>Loading the notification endpoints…</LoadingState>
      ) : data && data.webhooks.length === 0 ? (
        <EmptyState title="No notification endpoints yet">
          Add one to hear when a key’s balance runs low or it is about to expire.
        </EmptyState>
      ) : data ? (
        <ul aria-label="Notification endpoints" className="flex flex-col gap-2">
          {data.webhooks.map((webhook) => (
            <WebhookItem
              key={webhook.id}
              account={account}
              webhook={webhook}
              test={test?.id === webhook.id ? test : null}
              testing={sendTest.isPending && sendTest.variables === webhook.id}
              onTest={() => runTest(webhook.id)}
              onDeliveries={() => setShowing(webhook)}
            />
          ))}
        </ul>
      ) : null}
      <WebhookDeliveriesDialog
        account={account}
        webhook={showing}
        onClose={() => setShowing(null)}
      />
    </section>
  );
}
