import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef, type KeyboardEvent } from 'react';
import { classNames } from '../../../components/class-names';
import { formatContextLength, formatPricePerMillion } from '../../../lib/format';
import type { IndexedModel, SortDirection, SortField } from '../catalog-filters';
import { VariantBadge } from './variant-badge';
import { GridHeader } from '../../../components/grid-header';

const columns =
  'grid grid-cols-[minmax(0,1fr)_auto] md:grid-cols-[minmax(0,1fr)_8rem_5rem_6.5rem_6.5rem_9rem] gap-x-3 items-center';

const sortableHeaders: Array<{
  field: SortField | null;
  label: string;
  className: string;
  numeric?: boolean;
}> = [
  { field: 'name', label: 'Model', className: '' },
  { field: null, label: 'Author', className: 'hidden md:block' },
  { field: 'context', label: 'Context', className: 'hidden md:block text-right', numeric: true },
  { field: 'prompt', label: 'Prompt $/M', className: 'hidden md:block text-right', numeric: true },
  {
    field: 'completion',
    label: 'Completion $/M',
    className: 'hidden md:block text-right',
    numeric: true,
  },
  { field: null, label: 'Modalities', className: 'hidden md:block' },
];

export interface ModelListProps {
  models: IndexedModel[];
  sort: SortField;
  direction: SortDirection;
  onSort(field: SortField): void;
  onOpen(id: string): void;
}

/**
 * The catalog as a virtualised table: only the rows in view are in the DOM, so thousands of
 * models scroll and filter without lag. Arrow keys move between rows' detail buttons.
 */
export function ModelList({ models, sort, direction, onSort, onOpen }: ModelListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  // eslint-disable-next-line react-hooks/incompatible-library -- no React Compiler here; this is the documented use.
  const virtualizer = useVirtualizer({
    count: models.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 60,
    overscan: 8,
    getItemKey: (index) => models[index]?.model.id ?? index,
    // Rendering before the first measurement (and in tests) needs a plausible viewport.
    initialRect: { width: 1024, height: 640 },
  });

  function moveFocus(event: KeyboardEvent<HTMLDivElement>) {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const current = (event.target as HTMLElement).closest<HTMLElement>('[data-index]');
    if (!current) return;
    event.preventDefault();
    const next = Number(current.dataset.index) + (event.key === 'ArrowDown' ? 1 : -1);
    if (next < 0 || next >= models.length) return;
    virtualizer.scrollToIndex(next, { align: 'auto' });
    // The target row may only exist after the scroll renders it.
    window.requestAnimationFrame(() => {
      scrollRef.current?.querySelector<HTMLElement>(`[data-index="${next}"] button`)?.focus();
    });
  }

  return (
    <div
      role="table"
      aria-label="Models"
      aria-rowcount={models.length + 1}
      className="flex min-h-0 flex-col overflow-hidden rounded-md border border-zinc-200 dark:border-zinc-800"
    >
      <GridHeader columns={columns}>
        {sortableHeaders.map((header) => (
          <div
            key={header.label}
            role="columnheader"
            className={header.className}
            aria-sort={
              header.field === sort ? (direction === 'asc' ? 'ascending' : 'descending') : undefined
            }
          >
            {header.field ? (
              <button
                type="button"
                className="inline-flex items-center gap-1 rounded hover:text-zinc-900 dark:hover:text-zinc-100"
                onClick={() => header.field && onSort(header.field)}
              >
                {header.label}
                <span aria-hidden="true">
                  {header.field === sort ? (direction === 'asc' ? '↑' : '↓') : ''}
                </span>
              </button>
            ) : (
              header.label
            )}
          </div>
        ))}
        {/* The small-screen layout shows prices in the right-hand cell instead of columns. */}
        <div role="columnheader" className="text-right md:hidden">
          Prompt · completion $/M
        </div>
      </GridHeader>
      <div
        ref={scrollRef}
        role="rowgroup"
        onKeyDown={moveFocus}
        className="max-h-[max(20rem,68dvh)] overflow-y-auto overscroll-contain"
      >
        <div
          role="presentation"
          className="relative w-full"
          style={{ height: virtualizer.getTotalSize() }}
        >
          {virtualizer.getVirtualItems().map((item) => {
            const entry = models[item.index];
            if (!entry) return null;
            const { model } = entry;
            return (
              <div
                key={item.key}
                role="row"
                aria-rowindex={item.index + 2}
                data-index={item.index}
                data-model-id={model.id}
                ref={virtualizer.measureElement}
                onClick={(event) => {
                  // Clicks on the row open the panel too; keyboard users use the name button.
                  if (!(event.target as HTMLElement).closest('button')) onOpen(model.id);
                }}
                className={classNames(
                  columns,
                  'absolute top-0 left-0 w-full cursor-pointer border-b border-zinc-100 px-3 py-2 text-sm hover:bg-zinc-50 dark:border-zinc-800/70 dark:hover:bg-zinc-900',
                )}
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <div role="cell" className="min-w-0">
                  <div className="flex min-w-0 items-center gap-1.5">
                    <button
                      type="button"
                      onClick={() => onOpen(model.id)}
                      aria-label={`Details of ${model.name || model.id}`}
                      className="truncate rounded text-left font-medium hover:underline"
                    >
                      {model.name || model.id}
                    </button>
                    <VariantBadge variant={model.variant} />
                  </div>
                  <div className="truncate font-mono text-xs text-zinc-600 dark:text-zinc-400">
                    {model.id}
                  </div>
                </div>
                <div role="cell" className="hidden min-w-0 md:block">
                  <div className="truncate text-zinc-700 dark:text-zinc-300">{model.author}</div>
                  {model.providers.length > 0 && (
                    // The count stays visible when a long first provider id is cut short.
                    <div
                      className="flex min-w-0 text-xs text-zinc-600 dark:text-zinc-400"
                      title={`Providers, in fallback order: ${model.providers.join(', ')}`}
                    >
                      <span className="truncate">via {model.providers[0]}</span>
                      {model.providers.length > 1 && (
                        <span className="shrink-0 pl-1">
                          <span aria-hidden="true">+{model.providers.length - 1}</span>
                          <span className="sr-only"> and {model.providers.length - 1} more</span>
                        </span>
                      )}
                    </div>
                  )}
                </div>
                <div role="cell" className="hidden text-right tabular-nums md:block">
                  {formatContextLength(model.context_length)}
                </div>
                <div role="cell" className="hidden text-right tabular-nums md:block">
                  {formatPricePerMillion(model.prompt_price)}
                </div>
                <div role="cell" className="hidden text-right tabular-nums md:block">
                  {formatPricePerMillion(model.completion_price)}
                </div>
                <div
                  role="cell"
                  className="hidden truncate text-xs text-zinc-600 md:block dark:text-zinc-400"
                >
                  {model.input_modalities.join(', ') || '—'} →{' '}
                  {model.output_modalities.join(', ') || '—'}
                </div>
                <div role="cell" className="text-right text-xs tabular-nums md:hidden">
                  <div>
                    {formatPricePerMillion(model.prompt_price)} ·{' '}
                    {formatPricePerMillion(model.completion_price)}
                  </div>
                  <div className="text-zinc-600 dark:text-zinc-400">
                    {formatContextLength(model.context_length)} ctx
                  </div>
                </div>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
