import { useEffect, type ReactNode } from 'react';

/** A page's title row (with optional actions on the right) and its content. */
export function PageLayout({
  title,
  description,
  actions,
  children,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
}) {
  useEffect(() => {
    document.title = `${title} · Gateway workbench`;
  }, [title]);
  return (
    <div className="mx-auto flex w-full max-w-screen-2xl flex-1 flex-col gap-4 px-3 py-4 sm:px-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="min-w-0">
          <h1 className="text-xl font-semibold tracking-tight">{title}</h1>
          {description && (
            <p className="mt-0.5 text-sm text-zinc-600 dark:text-zinc-400">{description}</p>
          )}
        </div>
        {actions && <div className="flex flex-wrap items-center gap-2">{actions}</div>}
      </div>
      {children}
    </div>
  );
}
