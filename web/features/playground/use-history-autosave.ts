/**
 * Keeps the playground's conversation in the browser: the conversation on screen (so a reload
 * brings it back), and, once it has a run, its history entry. Both are written after a pause in
 * editing, at once when a run ends, and when the page goes away.
 */
import { useEffect, useRef, useState } from 'react';
import { saveCurrentSession } from './current-session-store';
import { saveHistoryEntry } from './history-store';
import type { PlaygroundSession } from './playground-types';

/** How long edits settle before the session is written. */
export const autosaveDelayMs = 400;

export function useHistoryAutosave({
  session,
  historyId,
  running,
}: {
  session: PlaygroundSession;
  historyId: string;
  running: boolean;
}): { historyNote: string | null } {
  const [historyNote, setHistoryNote] = useState<string | null>(null);
  const hasRun = session.messages.some((message) => message.run) || session.compareLanes.length > 0;
  const wasRunning = useRef(false);

  useEffect(() => {
    const runJustEnded = wasRunning.current && !running;
    wasRunning.current = running;
    const save = () => {
      // The conversation on screen is kept even mid-reply: a reload then shows it, stopped.
      const current = saveCurrentSession(historyId, session);
      if (!hasRun || running) {
        if (current === null) {
          setHistoryNote(
            'The conversation could not be kept for a reload: the browser’s storage is full or blocked.',
          );
        }
        return;
      }
      const saved = saveHistoryEntry(historyId, session);
      setHistoryNote(
        saved === null
          ? 'History could not be saved: the browser’s storage is full or blocked.'
          : saved.imagesOmitted
            ? 'Saved to history without the images: they did not fit in the browser’s storage.'
            : null,
      );
    };
    const timer = window.setTimeout(save, runJustEnded ? 0 : autosaveDelayMs);
    window.addEventListener('pagehide', save);
    return () => {
      window.clearTimeout(timer);
      window.removeEventListener('pagehide', save);
    };
  }, [session, historyId, hasRun, running]);

  return { historyNote };
}
