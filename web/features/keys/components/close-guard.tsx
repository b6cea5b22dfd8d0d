/**
 * A dialog that shows a secret once must not lose it to a stray Esc or a click beside it: while
 * the secret is not copied, those ask first, and only an explicit Done (or "Close without
 * copying") closes. The secret's summary arms the guard; the dialog's frame asks.
 */
import { AlertDialog, Dialog } from 'radix-ui';
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { Button } from '../../../components/button';
import { DialogFooter } from '../../../components/dialog-footer';

/** Arms (true) or disarms (false) the guard of the dialog around. */
const CloseGuardContext = createContext<((armed: boolean) => void) | null>(null);

/** Keeps the dialog around from closing by Esc or outside clicks while `armed`. */
export function useCloseGuard(armed: boolean) {
  const arm = useContext(CloseGuardContext);
  useEffect(() => {
    arm?.(armed);
    return () => arm?.(false);
  }, [arm, armed]);
}

/**
 * The guard's state and what the frame needs: handlers for the dialog's content, a provider for
 * its children, and the question to render inside it, whose "Close without copying" closes it.
 */
export function useCloseGuardFrame() {
  const [armed, setArmed] = useState(false);
  const [asking, setAsking] = useState(false);
  const stop = (event: Event) => {
    if (!armed) return;
    event.preventDefault();
    setAsking(true);
  };
  return {
    armed,
    contentHandlers: { onEscapeKeyDown: stop, onInteractOutside: stop },
    provide: (children: ReactNode) => (
      <CloseGuardContext.Provider value={setArmed}>{children}</CloseGuardContext.Provider>
    ),
    question: (
      <AlertDialog.Root open={asking} onOpenChange={setAsking}>
        <AlertDialog.Portal>
          <AlertDialog.Overlay className="fixed inset-0 z-50 bg-zinc-950/40" />
          <AlertDialog.Content className="fixed top-1/2 left-1/2 z-50 flex w-[min(26rem,calc(100vw-1rem))] -translate-x-1/2 -translate-y-1/2 flex-col gap-3 rounded-lg border border-zinc-200 bg-white p-4 text-zinc-900 shadow-xl dark:border-zinc-800 dark:bg-zinc-950 dark:text-zinc-100">
            <AlertDialog.Title className="text-base font-semibold">
              Close without copying?
            </AlertDialog.Title>
            <AlertDialog.Description className="text-sm text-zinc-700 dark:text-zinc-300">
              It is shown only this once and nobody can show it again: closing now loses it.
            </AlertDialog.Description>
            <DialogFooter>
              <AlertDialog.Cancel asChild>
                <Button variant="primary">Keep it open</Button>
              </AlertDialog.Cancel>
              <Dialog.Close asChild>
                <AlertDialog.Action asChild>
                  <Button variant="danger">Close without copying</Button>
                </AlertDialog.Action>
              </Dialog.Close>
            </DialogFooter>
          </AlertDialog.Content>
        </AlertDialog.Portal>
      </AlertDialog.Root>
    ),
  };
}
