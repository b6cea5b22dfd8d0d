/**
 * Saved runs: model, time and first words; reopen, rename, delete, export as JSON. Stored in
 * this browser only, never with a key.
 */
import { useState } from 'react';
import { Button } from '../../../components/button';
import { EmptyState } from '../../../components/states';
import { formatDateTime } from '../../../lib/format';
import {
  deleteHistoryEntry,
  entryTitle,
  exportHistoryJson,
  renameHistoryEntry,
  sessionModels,
  useHistoryEntries,
  type HistoryEntry,
} from '../history-store';
import { PlaygroundDialog } from './playground-dialog';

function downloadJson(fileName: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  // The click has started the download; the object URL is no longer needed.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

function HistoryRow({
  entry,
  current,
  onOpen,
}: {
  entry: HistoryEntry;
  current: boolean;
  onOpen(entry: HistoryEntry): void;
}) {
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(entryTitle(entry));
  const title = entryTitle(entry);
  // Messages, not turns: a turn is a question with its answer, and tool calls add more.
  const messageCount = entry.session.messages.length;
  return (
    <li className="flex flex-col gap-1.5 border-b border-zinc-200 py-2.5 last:border-b-0 sm:flex-row sm:items-center dark:border-zinc-800">
      <div className="min-w-0 flex-1">
        {renaming ? (
          <form
            className="flex gap-2"
            onSubmit={(event) => {
              event.preventDefault();
              renameHistoryEntry(entry.id, name);
              setRenaming(false);
            }}
          >
            <input
              aria-label={`New name for ${title}`}
              value={name}
              onChange={(event) => setName(event.target.value)}
              className="h-8 min-w-0 flex-1 rounded-md border border-zinc-300 bg-white px-2 text-sm dark:border-zinc-700 dark:bg-zinc-950"
            />
            <Button type="submit" size="small" variant="primary">
              Save name
            </Button>
          </form>
        ) : (
          <p className="truncate text-sm font-medium">
            {title}
            {current && (
              <span className="ml-2 text-xs font-normal text-sky-700 dark:text-sky-400">
                (open now)
              </span>
            )}
          </p>
        )}
        <p className="truncate text-xs text-zinc-500 dark:text-zinc-400">
          <span className="font-mono">{sessionModels(entry.session).join(', ') || 'no model'}</span>{' '}
          · {formatDateTime(entry.updatedAt, 'milliseconds')} · {messageCount}{' '}
          {messageCount === 1 ? 'message' : 'messages'}
        </p>
      </div>
      <div className="flex shrink-0 gap-1">
        <Button
          size="small"
          variant="primary"
          onClick={() => onOpen(entry)}
          aria-label={`Open ${title}`}
        >
          Open
        </Button>
        {!renaming && (
          <Button
            size="small"
            onClick={() => {
              setName(title);
              setRenaming(true);
            }}
            aria-label={`Rename ${title}`}
          >
            Rename
          </Button>
        )}
        <Button
          size="small"
          variant="ghost"
          onClick={() => deleteHistoryEntry(entry.id)}
          aria-label={`Delete ${title}`}
        >
          Delete
        </Button>
        <Button
          size="small"
          variant="ghost"
          onClick={() => downloadJson(`playground-${entry.id}.json`, exportHistoryJson([entry]))}
          aria-label={`Export ${title} as JSON`}
        >
          Export
        </Button>
      </div>
    </li>
  );
}

export function HistoryDialog({
  open,
  onOpenChange,
  currentId,
  onOpen,
}: {
  open: boolean;
  onOpenChange(open: boolean): void;
  currentId: string;
  onOpen(entry: HistoryEntry): void;
}) {
  const entries = useHistoryEntries();
  return (
    <PlaygroundDialog
      open={open}
      onOpenChange={onOpenChange}
      title="History"
      description="Every run is saved in this browser (never a key). Newest first."
    >
      {entries.length === 0 ? (
        <EmptyState title="No runs yet">
          Send a message: the conversation is saved here after each run.
        </EmptyState>
      ) : (
        <>
          <div className="mb-2 flex justify-end">
            <Button
              size="small"
              onClick={() => downloadJson('playground-history.json', exportHistoryJson(entries))}
            >
              Export all as JSON
            </Button>
          </div>
          <ul aria-label="Saved runs">
            {entries.map((entry) => (
              <HistoryRow
                key={entry.id}
                entry={entry}
                current={entry.id === currentId}
                onOpen={onOpen}
              />
            ))}
          </ul>
        </>
      )}
    </PlaygroundDialog>
  );
}
