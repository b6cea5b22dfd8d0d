/** The × in a dialog's header: one look and one accessible name ("Close") in every dialog. */
import { Dialog } from 'radix-ui';

export function DialogCloseButton() {
  return (
    <Dialog.Close
      aria-label="Close"
      className="rounded-md px-2 py-1 text-lg leading-none text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
    >
      ×
    </Dialog.Close>
  );
}
