import { Dialog } from 'radix-ui';
import type { Webhook, WebhookDelivery } from '../../../../contract/webhooks';
import { Badge, type BadgeTone } from '../../../components/badge';
import { Button } from '../../../components/button';
import { DataTable, columnVisibility, type TableColumn } from '../../../components/data-table';
import { ErrorPanel } from '../../../components/error-panel';
import { EmptyState, LoadingState } from '../../../components/states';
import { formatDateTime } from '../../../lib/format';
import { useWebhookDeliveries } from '../api/webhook-deliveries';
import { DialogFrame } from './dialog-frame';

const deliveryTones: Record<WebhookDelivery['status'], BadgeTone> = {
  delivered: 'green',
  pending: 'amber',
  failed: 'red',
};

const deliveryLabels: Record<WebhookDelivery['status'], string> = {
  delivered: 'Delivered',
  pending: 'Retrying',
  failed: 'Failed',
};

export function DeliveryStatusBadge({ delivery }: { delivery: WebhookDelivery }) {
  return <Badge tone={deliveryTones[delivery.status]}>{deliveryLabels[delivery.status]}</Badge>;
}

/** What the last try got, in a few words: the HTTP status, or why there was none. */
export function deliveryOutcome(delivery: WebhookDelivery): string {
  const answer =
    delivery.response_status !== null ? `HTTP ${delivery.response_status}` : 'no answer';
  const latency = delivery.latency_ms !== null ? ` in ${delivery.latency_ms} ms` : '';
  return `${answer}${latency}${delivery.error ? `: ${delivery.error}` : ''}`;
}

const columns = [
  { key: 'time', header: 'Time' },
  { key: 'event', header: 'Event' },
  { key: 'status', header: 'Status' },
  { key: 'answer', header: 'Response' },
  { key: 'latency', header: 'Latency', align: 'right', hideBelow: 'sm' },
  { key: 'attempts', header: 'Tries', align: 'right', hideBelow: 'sm' },
  { key: 'next', header: 'Next retry', hideBelow: 'md' },
] satisfies TableColumn[];

const hidden = (key: string) =>
  columnVisibility(columns.find((column) => column.key === key)?.hideBelow);

function DeliveriesTable({ account, webhook }: { account: string; webhook: Webhook }) {
  const deliveries = useWebhookDeliveries(account, webhook.id, true);
  if (deliveries.isPending) return <LoadingState>Loading the deliveries…</LoadingState>;
  if (deliveries.isError) {
    return (
      <ErrorPanel
        what="Loading the deliveries"
        error={deliveries.error}
        onRetry={() => void deliveries.refetch()}
      />
    );
  }
  if (deliveries.data.deliveries.length === 0) {
    return (
      <EmptyState title="No deliveries yet">
        Send a test event to see one, or wait for an event the endpoint subscribes to.
      </EmptyState>
    );
  }
  return (
    <DataTable columns={columns} label="Recent deliveries" className="w-full text-sm">
      {deliveries.data.deliveries.map((delivery) => (
        <tr key={delivery.id} className="border-t border-zinc-200 dark:border-zinc-800">
          <td className="px-2 py-1.5 text-xs whitespace-nowrap tabular-nums">
            {formatDateTime(delivery.last_attempt_at ?? delivery.created_at, 'seconds')}
          </td>
          <td className="px-2 py-1.5 text-xs">
            <span className="font-mono">{delivery.event_type}</span>
            <details className="mt-1">
              <summary className="cursor-pointer text-zinc-600 dark:text-zinc-400">
                Request body
              </summary>
              <pre className="mt-1 max-w-[28rem] overflow-x-auto rounded bg-zinc-50 p-2 font-mono text-[11px] dark:bg-zinc-900">
                {JSON.stringify(delivery.payload, null, 2)}
              </pre>
            </details>
          </td>
          <td className="px-2 py-1.5">
            <DeliveryStatusBadge delivery={delivery} />
          </td>
          <td className="px-2 py-1.5 text-xs [overflow-wrap:anywhere]">
            {delivery.response_status !== null ? `HTTP ${delivery.response_status}` : '—'}
            {delivery.error && (
              <span className="block text-zinc-600 dark:text-zinc-400">{delivery.error}</span>
            )}
          </td>
          <td className={`px-2 py-1.5 text-right tabular-nums ${hidden('latency') ?? ''}`}>
            {delivery.latency_ms !== null ? `${delivery.latency_ms} ms` : '—'}
          </td>
          <td className={`px-2 py-1.5 text-right tabular-nums ${hidden('attempts') ?? ''}`}>
            {delivery.attempts}
          </td>
          <td className={`px-2 py-1.5 ${hidden('next') ?? ''}`}>
            {delivery.status === 'pending'
              ? formatDateTime(delivery.next_attempt_at, 'seconds')
              : '—'}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

/** `Deliveries`: an endpoint's recent deliveries, newest first, kept current while open. */
export function WebhookDeliveriesDialog({
  account,
  webhook,
  onClose,
}: {
  account: string;
  webhook: Webhook | null;
  onClose(): void;
}) {
  return (
    <Dialog.Root open={webhook !== null} onOpenChange={(open) => !open && onClose()}>
      {webhook && (
        <DialogFrame
          width="wide"
          title="Deliveries"
          description={
            <>
              The last 20 events sent to{' '}
              <span className="font-mono text-xs [overflow-wrap:anywhere]">{webhook.url}</span>,
              newest first, with the time of the last try and the body sent (signed with the
              endpoint's secret). A failed try is retried with growing waits for 24 hours. The
              gateway keeps the answer's status and error, not its body.
            </>
          }
        >
          <DeliveriesTable account={account} webhook={webhook} />
          <div className="flex justify-end">
            <Dialog.Close asChild>
              <Button>Close</Button>
            </Dialog.Close>
          </div>
        </DialogFrame>
      )}
    </Dialog.Root>
  );
}
