/**
 * The playground's keys, anywhere on the page: Esc stops a streaming reply, Ctrl/Cmd+Enter
 * sends. A key already handled (a list closing on Esc) or meant for an open dialog is left alone.
 */
import { useEffect, useEffectEvent } from 'react';

/** True while a dialog is open: Esc then belongs to the dialog, not to Stop. */
function dialogIsOpen(): boolean {
  return document.querySelector('[role="dialog"][data-state="open"]') !== null;
}

export function usePlaygroundShortcuts({
  running,
  onStop,
  onSend,
}: {
  running: boolean;
  onStop(): void;
  onSend(): void;
}): void {
  const onKeyDown = useEffectEvent((event: KeyboardEvent) => {
    if (event.defaultPrevented || dialogIsOpen()) return;
    if (event.key === 'Escape' && running) {
      event.preventDefault();
      onStop();
    } else if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !running) {
      event.preventDefault();
      onSend();
    }
  });
  useEffect(() => {
    const listener = (event: KeyboardEvent) => onKeyDown(event);
    document.addEventListener('keydown', listener);
    return () => document.removeEventListener('keydown', listener);
  }, []);
}
