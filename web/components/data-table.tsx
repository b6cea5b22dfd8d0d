import type { ReactNode } from 'react';
import { classNames } from './class-names';

/** A column of a `DataTable`: its header and the side its values line up on. */
export interface TableColumn {
  /** Unique among the table's columns. */
  key: string;
  header: ReactNode;
  /** Numbers line up on the right. */
  align?: 'left' | 'right';
  /**
   * Hides the column on screens narrower than this breakpoint (phones), so the columns that
   * matter most stay on screen; its cells must use `columnVisibility` with the same value.
   */
  hideBelow?: 'sm' | 'md' | 'lg';
  /**
   * Width classes for the column, set on its header cell. In a `table-fixed` table they hold
   * the column's width whatever its cells hold, so values arriving do not re-flow the table.
   */
  width?: string;
}

const visibilityClasses: Record<NonNullable<TableColumn['hideBelow']>, string> = {
  sm: 'hidden sm:table-cell',
  md: 'hidden md:table-cell',
  lg: 'hidden lg:table-cell',
};

/** The classes that hide a cell where its column is hidden (see `TableColumn.hideBelow`). */
export function columnVisibility(hideBelow: TableColumn['hideBelow']): string | undefined {
  return hideBelow ? visibilityClasses[hideBelow] : undefined;
}

/**
 * A bordered table that scrolls sideways when the screen is narrow, with one header row;
 * `children` are the body's rows.
 */
export function DataTable({
  columns,
  label,
  className,
  children,
}: {
  columns: TableColumn[];
  /** The table's accessible name. */
  label?: string;
  /** The `<table>` element's classes (width, text size, wrapping). */
  className: string;
  children: ReactNode;
}) {
  return (
    // Focusable, so a keyboard can scroll a table wider than a phone (WCAG 2.1.1; axe's
    // scrollable-region-focusable): a table of figures has no control of its own to tab to.
    <div
      tabIndex={0}
      className="relative overflow-x-auto rounded-lg border border-zinc-200 focus-visible:outline-2 focus-visible:outline-sky-600 dark:border-zinc-800"
    >
      <table aria-label={label} className={className}>
        <thead className="bg-zinc-50 text-xs whitespace-nowrap text-zinc-600 dark:bg-zinc-900 dark:text-zinc-400">
          <tr>
            {columns.map((column) => (
              <th
                key={column.key}
                scope="col"
                className={classNames(
                  'px-2 py-1.5',
                  column.align === 'right' ? 'text-right' : 'text-left',
                  'font-medium',
                  column.width,
                  columnVisibility(column.hideBelow),
                )}
              >
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
