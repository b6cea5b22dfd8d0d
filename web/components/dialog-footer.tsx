/**
 * A dialog's action row (Cancel, Create, Done…), kept in view at the bottom of a dialog taller
 * than the screen: on a phone a long form otherwise puts its actions below the fold. Its parent
 * must be the dialog's scrolling panel, or a form that fills it, with the panel's `p-4` padding.
 */
import type { ReactNode } from 'react';

export function DialogFooter({ children }: { children: ReactNode }) {
  return (
    <div className="sticky bottom-0 -mx-4 -mb-4 flex flex-wrap justify-end gap-2 border-t border-zinc-200 bg-white px-4 py-3 dark:border-zinc-800 dark:bg-zinc-950">
      {children}
    </div>
  );
}
