import { DropdownMenu } from 'radix-ui';
import type { ReactNode } from 'react';

/** A dropdown menu's list, the one look of every menu: under its button, aligned to its end. */
export function MenuContent({ children }: { children: ReactNode }) {
  return (
    <DropdownMenu.Portal>
      <DropdownMenu.Content
        align="end"
        sideOffset={4}
        className="z-50 min-w-48 rounded-md border border-zinc-200 bg-white p-1 shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
      >
        {children}
      </DropdownMenu.Content>
    </DropdownMenu.Portal>
  );
}
