/**
 * The notes around the composer: the re-run's kept copy, what stops a send, what was left out of
 * it, History's saving trouble, and images the chosen model cannot take.
 */
import { Button } from '../../../components/button';
import type { RerunCopy } from '../use-playground-session';

const statusClass =
  'flex flex-wrap items-center gap-2 rounded-md border border-sky-200 bg-sky-50 px-3 py-2 text-sm text-sky-950 dark:border-sky-900 dark:bg-sky-950/40 dark:text-sky-100';

/** Shown after a reload brought the conversation back. */
export function RestoredNote({ onDismiss }: { onDismiss(): void }) {
  return (
    <div role="status" className={statusClass}>
      <span>
        Your conversation from before the reload is back (kept in this browser, never with a key).
        New conversation starts afresh; History keeps every run.
      </span>
      <Button size="small" variant="ghost" onClick={onDismiss}>
        Dismiss
      </Button>
    </div>
  );
}

export interface PlaygroundNoticesProps {
  rerunCopy: RerunCopy | null;
  running: boolean;
  onOpenRerunCopy(id: string): void;
  onDismissRerunCopy(): void;
  problems: string[];
  notes: string[];
  historyNote: string | null;
  conversationImagesNote: string | null;
}

export function PlaygroundNotices({
  rerunCopy,
  running,
  onOpenRerunCopy,
  onDismissRerunCopy,
  problems,
  notes,
  historyNote,
  conversationImagesNote,
}: PlaygroundNoticesProps) {
  return (
    <>
      {rerunCopy && (
        <div role="status" className={statusClass}>
          {rerunCopy.kept ? (
            <>
              <span>
                The re-run replaced the turns after it. The conversation as it was is kept in
                History as “{rerunCopy.title}”.
              </span>
              <Button size="small" disabled={running} onClick={() => onOpenRerunCopy(rerunCopy.id)}>
                Open the earlier conversation
              </Button>
            </>
          ) : (
            <span>
              The re-run replaced the turns after it, and the browser’s storage is full or blocked,
              so no copy of them could be kept.
            </span>
          )}
          <Button size="small" variant="ghost" onClick={onDismissRerunCopy}>
            Dismiss
          </Button>
        </div>
      )}
      {problems.length > 0 && (
        <div
          role="alert"
          className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-950 dark:border-red-800 dark:bg-red-950/40 dark:text-red-100"
        >
          <p className="font-semibold">Not sent:</p>
          <ul className="mt-1 list-disc pl-5">
            {problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        </div>
      )}
      {notes.length > 0 && (
        <ul className="text-xs text-amber-800 dark:text-amber-300">
          {notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      )}
      {historyNote && <p className="text-xs text-amber-800 dark:text-amber-300">{historyNote}</p>}
      {conversationImagesNote && (
        <p role="alert" className="text-xs text-amber-900 dark:text-amber-200">
          {conversationImagesNote}
        </p>
      )}
    </>
  );
}
