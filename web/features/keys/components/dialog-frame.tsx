/**
 * The look of the Keys page's dialogs: one overlay and one centred panel, shared by the plain
 * dialogs (radix `Dialog`) and the confirmations (radix `AlertDialog`).
 */
import { DialogFooter } from '../../../components/dialog-footer';
import { AlertDialog, Dialog } from 'radix-ui';
import { useState, type ComponentProps, type ReactNode } from 'react';
import { Button } from '../../../components/button';
import { classNames } from '../../../components/class-names';
import { useCloseGuardFrame } from './close-guard';

/**
 * A row action's dialog opened from elsewhere (the phone's actions menu): open from outside, and
 * without a trigger button of its own.
 */
export interface OpenControl {
  open: boolean;
  onOpenChange(open: boolean): void;
}

/** A dialog's open state: its own, or the one given from outside. */
export function useOpenState(control: OpenControl | undefined): [boolean, (open: boolean) => void] {
  const [ownOpen, setOwnOpen] = useState(false);
  return [control?.open ?? ownOpen, control?.onOpenChange ?? setOwnOpen];
}

export const overlayClassName = 'fixed inset-0 z-40 bg-zinc-950/40';

export function contentClassName(width: 'narrow' | 'wide' = 'narrow'): string {
  return classNames(
    'fixed top-1/2 left-1/2 z-50 flex max-h-[90dvh] -translate-x-1/2 -translate-y-1/2 flex-col gap-3 overflow-y-auto rounded-lg border border-zinc-200 bg-white p-4 text-zinc-900 shadow-xl dark:border-zinc-800 dark:bg-zinc-950 dark:text-zinc-100',
    width === 'wide' ? 'w-[min(44rem,calc(100vw-1rem))]' : 'w-[min(32rem,calc(100vw-1rem))]',
  );
}

export const titleClassName = 'text-lg font-semibold';
export const descriptionClassName = 'text-sm text-zinc-700 dark:text-zinc-300';

/**
 * A dialog's portal, overlay, panel, title and description; `children` follow them. A child that
 * shows a secret once arms the close guard (close-guard.tsx): Esc and outside clicks ask first.
 */
export function DialogFrame({
  title,
  description,
  width,
  children,
  onEscapeKeyDown,
  onInteractOutside,
  ...content
}: {
  title: ReactNode;
  description: ReactNode;
  width?: 'narrow' | 'wide';
  children: ReactNode;
} & Omit<ComponentProps<typeof Dialog.Content>, 'title' | 'className'>) {
  const guard = useCloseGuardFrame();
  return (
    <Dialog.Portal>
      <Dialog.Overlay className={overlayClassName} />
      <Dialog.Content
        className={contentClassName(width)}
        onEscapeKeyDown={(event) => {
          onEscapeKeyDown?.(event);
          guard.contentHandlers.onEscapeKeyDown(event);
        }}
        onInteractOutside={(event) => {
          onInteractOutside?.(event);
          guard.contentHandlers.onInteractOutside(event);
        }}
        {...content}
      >
        <Dialog.Title className={titleClassName}>{title}</Dialog.Title>
        <Dialog.Description className={descriptionClassName}>{description}</Dialog.Description>
        {guard.provide(children)}
        {guard.question}
      </Dialog.Content>
    </Dialog.Portal>
  );
}

/** What a dialog shows under an outcome that needs nothing more: a Done that closes it. */
export function DoneFooter() {
  return (
    <DialogFooter>
      <Dialog.Close asChild>
        <Button variant="primary">Done</Button>
      </Dialog.Close>
    </DialogFooter>
  );
}

/** A confirmation's portal, overlay, panel and title (radix `AlertDialog`); `children` follow. */
export function AlertFrame({ title, children }: { title: ReactNode; children: ReactNode }) {
  return (
    <AlertDialog.Portal>
      <AlertDialog.Overlay className={overlayClassName} />
      <AlertDialog.Content className={contentClassName()}>
        <AlertDialog.Title className={titleClassName}>{title}</AlertDialog.Title>
        {children}
      </AlertDialog.Content>
    </AlertDialog.Portal>
  );
}
