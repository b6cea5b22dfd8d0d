import { Dialog } from 'radix-ui';
import type { ChildKey, ChildKeyEvent } from '../../../../contract/workbench-api';
import { Button } from '../../../components/button';
import { DialogFooter } from '../../../components/dialog-footer';
import { ErrorPanel } from '../../../components/error-panel';
import { EmptyState, LoadingState } from '../../../components/states';
import { formatDateTime } from '../../../lib/format';
import { useChildKeyEvents } from '../api/child-key-events';
import { describeAction, describeActor, describeChanges, type KeyNames } from '../child-key-events';
import { childKeysQueryOptions } from '../../../api/child-keys';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { DialogFrame, type OpenControl, useOpenState } from './dialog-frame';

function EventItem({
  event,
  parentId,
  names,
}: {
  event: ChildKeyEvent;
  parentId: string | null;
  names: KeyNames;
}) {
  const changes = describeChanges(event, names);
  return (
    <li className="flex flex-col gap-1 border-t border-zinc-200 py-2 first:border-t-0 dark:border-zinc-800">
      <p className="flex flex-wrap items-baseline gap-x-2">
        <span className="font-medium">{describeAction(event)}</span>
        <span className="text-xs text-zinc-600 dark:text-zinc-400">
          by {describeActor(event.actor, parentId, names)} ·{' '}
          <time dateTime={new Date(event.created_at * 1000).toISOString()}>
            {formatDateTime(event.created_at, 'seconds')}
          </time>
        </span>
      </p>
      {changes.length > 0 && (
        <ul className="flex flex-col gap-0.5 text-xs">
          {changes.map((change) => (
            <li key={change.field}>
              <span className="text-zinc-600 dark:text-zinc-400">{change.label}: </span>
              {change.from !== null && (
                <>
                  <span className="tabular-nums">{change.from}</span>
                  <span aria-hidden="true"> → </span>
                  <span className="sr-only"> to </span>
                </>
              )}
              <span className="font-medium tabular-nums">{change.to}</span>
            </li>
          ))}
        </ul>
      )}
      {event.note && <p className="text-xs italic">“{event.note}”</p>}
    </li>
  );
}

function History({ account, childKey }: { account: string; childKey: ChildKey }) {
  const events = useChildKeyEvents(account, childKey.id, true);
  // The account's keys, already listed on the page, name the keys the history gives by id.
  const listed = useQuery(childKeysQueryOptions(account)).data?.keys;
  const names: KeyNames = useMemo(
    () => new Map((listed ?? []).map((key) => [key.id, key.name])),
    [listed],
  );
  if (events.isPending) return <LoadingState>Loading the history…</LoadingState>;
  if (events.isError) {
    return (
      <ErrorPanel
        what={`Loading the history of “${childKey.name}”`}
        error={events.error}
        onRetry={() => void events.refetch()}
      />
    );
  }
  const list = events.data.pages.flatMap((page) => page.events);
  if (list.length === 0) return <EmptyState title="No changes recorded yet" />;
  return (
    <>
      <ol aria-label={`Changes of ${childKey.name}`} className="text-sm">
        {list.map((event) => (
          <EventItem key={event.id} event={event} parentId={childKey.parent_id} names={names} />
        ))}
      </ol>
      {events.hasNextPage && (
        <Button
          size="small"
          className="self-start"
          disabled={events.isFetchingNextPage}
          onClick={() => void events.fetchNextPage()}
        >
          {events.isFetchingNextPage ? 'Loading…' : 'Show older changes'}
        </Button>
      )}
    </>
  );
}

/** `History`: every audited change of a child key, newest first. Never a key. */
export function ChildKeyHistoryDialog({
  account,
  childKey,
  control,
}: {
  account: string;
  childKey: ChildKey;
  control?: OpenControl;
}) {
  const [open, setOpen] = useOpenState(control);
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      {!control && (
        <Dialog.Trigger asChild>
          <Button size="small" variant="ghost" aria-label={`History of ${childKey.name}`}>
            History
          </Button>
        </Dialog.Trigger>
      )}
      <DialogFrame
        title={`History of “${childKey.name}”`}
        description={
          <>
            Every change to <span className="font-mono">{childKey.key}</span>, newest first: who
            made it, when, and the values before and after.
          </>
        }
      >
        {open && <History account={account} childKey={childKey} />}
        <DialogFooter>
          <Dialog.Close asChild>
            <Button>Close</Button>
          </Dialog.Close>
        </DialogFooter>
      </DialogFrame>
    </Dialog.Root>
  );
}
