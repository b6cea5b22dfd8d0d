/**
 * The header row of a virtualized ARIA grid table (`role="table"` of divs, rows laid out by a
 * CSS grid of `columns`): the Models list and the Requests table share its look.
 */
import type { ReactNode } from 'react';
import { classNames } from './class-names';

export function GridHeader({ columns, children }: { columns: string; children: ReactNode }) {
  return (
    <div
      role="rowgroup"
      className="border-b border-zinc-200 bg-zinc-50 dark:border-zinc-800 dark:bg-zinc-900"
    >
      <div
        role="row"
        aria-rowindex={1}
        className={classNames(
          columns,
          'px-3 py-1.5 text-xs font-medium text-zinc-600 dark:text-zinc-400',
        )}
      >
        {children}
      </div>
    </div>
  );
}
