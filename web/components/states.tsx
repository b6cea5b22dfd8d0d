import type { ReactNode } from 'react';

/** A polite loading line; `role="status"` lets screen readers hear it once. */
export function LoadingState({ children }: { children: ReactNode }) {
  return (
    <p
      role="status"
      className="flex items-center gap-2 py-6 text-sm text-zinc-600 dark:text-zinc-400"
    >
      <span
        aria-hidden="true"
        className="size-3 animate-spin rounded-full border-2 border-zinc-300 border-t-zinc-700 motion-reduce:animate-none dark:border-zinc-700 dark:border-t-zinc-200"
      />
      {children}
    </p>
  );
}

/** What to show when there is nothing to show, and what to do about it. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="rounded-md border border-dashed border-zinc-300 p-6 text-center text-sm dark:border-zinc-700">
      <p className="font-medium">{title}</p>
      {children && <div className="mt-1 text-zinc-600 dark:text-zinc-400">{children}</div>}
    </div>
  );
}
