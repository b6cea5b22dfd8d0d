import { AlertDialog } from 'radix-ui';
import { useState } from 'react';
import type { Webhook } from '../../../../contract/webhooks';
import { Button } from '../../../components/button';
import { ErrorPanel } from '../../../components/error-panel';
import { useDeleteWebhook } from '../api/change-webhook';
import {
  contentClassName,
  descriptionClassName,
  overlayClassName,
  titleClassName,
} from './dialog-frame';

/** `Delete`: asks first, naming the endpoint by its URL, because it cannot be undone. */
export function DeleteWebhookDialog({ account, webhook }: { account: string; webhook: Webhook }) {
  const [open, setOpen] = useState(false);
  const remove = useDeleteWebhook(account);
  return (
    <AlertDialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) remove.reset();
      }}
    >
      <AlertDialog.Trigger asChild>
        <Button
          size="small"
          variant="ghost"
          className="text-red-700! dark:text-red-300!"
          aria-label={`Delete the endpoint ${webhook.url}`}
        >
          Delete
        </Button>
      </AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className={overlayClassName} />
        <AlertDialog.Content className={contentClassName()}>
          <AlertDialog.Title className={titleClassName}>Delete this endpoint?</AlertDialog.Title>
          <AlertDialog.Description className={descriptionClassName}>
            The gateway stops sending events to{' '}
            <span className="font-mono text-xs [overflow-wrap:anywhere]">{webhook.url}</span> at
            once, pending retries included. This cannot be undone; its secret goes with it.
          </AlertDialog.Description>
          {remove.isError && <ErrorPanel what="Deleting the endpoint" error={remove.error} />}
          <div className="flex justify-end gap-2">
            <AlertDialog.Cancel asChild>
              <Button variant="ghost">Cancel</Button>
            </AlertDialog.Cancel>
            {/* Not AlertDialog.Action: the dialog stays open until the deletion is done. */}
            <Button
              variant="danger"
              disabled={remove.isPending}
              onClick={() => remove.mutate(webhook.id, { onSuccess: () => setOpen(false) })}
            >
              {remove.isPending ? 'Deleting…' : 'Delete'}
            </Button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
