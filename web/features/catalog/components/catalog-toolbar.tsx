import { Collapsible, Popover } from 'radix-ui';
import { forwardRef, useId, useState, type ReactNode } from 'react';
import { Button } from '../../../components/button';
import { SelectField } from '../../../components/select-field';
import {
  countActiveFilters,
  defaultDirection,
  readPriceBound,
  type CatalogFacets,
  type CatalogFilters,
  type SortField,
} from '../catalog-filters';

const sortLabels: Record<SortField, string> = {
  name: 'Name',
  prompt: 'Prompt price',
  completion: 'Completion price',
  context: 'Context length',
  newest: 'Newest',
};

const all = 'all';

function variantLabel(variant: string): string {
  if (variant === 'any') return 'Any variant';
  if (variant === 'none') return 'Base only';
  return `:${variant}`;
}

function FilterPopover({
  label,
  name,
  active,
  children,
}: {
  label: string;
  /** The panel's accessible name: Radix gives it role="dialog", and a dialog needs a name. */
  name: string;
  active: boolean;
  children: ReactNode;
}) {
  return (
    <Popover.Root>
      <Popover.Trigger asChild>
        <Button
          className={
            active ? 'border-sky-600 text-sky-800 dark:border-sky-400 dark:text-sky-300' : undefined
          }
        >
          {label}
          <span aria-hidden="true" className="text-zinc-500">
            ▾
          </span>
        </Button>
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content
          aria-label={name}
          sideOffset={4}
          align="start"
          className="z-50 w-72 max-w-[calc(100vw-1rem)] rounded-md border border-zinc-200 bg-white p-3 text-sm shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
        >
          {children}
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}

export interface CatalogToolbarProps {
  /** The filters as shown: search and price bounds as typed, the rest from the URL. */
  filters: CatalogFilters;
  onSearchTextChange(text: string): void;
  /** Escape in a search box with text: clear it at once. */
  onSearchClear(): void;
  onPriceMinimumChange(text: string): void;
  onPriceMaximumChange(text: string): void;
  /** Why the price range matches nothing (From above To), or null. */
  rangeProblem: string | null;
  onSwapPrices(): void;
  facets: CatalogFacets;
  onChange(change: Partial<CatalogFilters>): void;
  onClear(): void;
}

/** Search, filters and sorting for the catalog; every change lands in the URL. */
export const CatalogToolbar = forwardRef<HTMLInputElement, CatalogToolbarProps>(
  function CatalogToolbar(
    {
      filters,
      onSearchTextChange,
      onSearchClear,
      onPriceMinimumChange,
      onPriceMaximumChange,
      rangeProblem,
      onSwapPrices,
      facets,
      onChange,
      onClear,
    },
    searchRef,
  ) {
    const priceMinimumId = useId();
    // On a phone the filters fold away behind one button; from `sm` up they are always shown.
    const [filtersOpen, setFiltersOpen] = useState(false);
    const priceMaximumId = useId();
    const activeFilters = countActiveFilters(filters);
    const searchText = filters.search;
    const priceProblems = [
      readPriceBound(filters.priceMinimum).problem,
      readPriceBound(filters.priceMaximum).problem,
    ].filter((problem): problem is string => problem !== null);
    const options = (values: string[], anyLabel: string) => [
      { value: all, label: anyLabel },
      ...values.map((value) => ({ value, label: value })),
    ];

    return (
      <div className="flex flex-col gap-2">
        <div className="flex flex-wrap items-end gap-2">
          <div className="relative min-w-0 flex-1 basis-64">
            <input
              ref={searchRef}
              type="search"
              aria-label="Search models"
              aria-keyshortcuts="/"
              placeholder="Search id, name, description…   ( / )"
              value={searchText}
              onChange={(event) => onSearchTextChange(event.target.value)}
              onKeyDown={(event) => {
                if (event.key === 'Escape' && searchText !== '') {
                  event.preventDefault();
                  onSearchClear();
                }
              }}
              className="h-8 w-full rounded-md border border-zinc-300 bg-white px-2.5 text-sm placeholder:text-zinc-500 dark:border-zinc-700 dark:bg-zinc-900 dark:placeholder:text-zinc-400"
            />
          </div>
          <SelectField
            className="w-36"
            label="Sort by"
            value={filters.sort}
            options={Object.entries(sortLabels).map(([value, label]) => ({ value, label }))}
            onChange={(value) => {
              const sort = value as SortField;
              onChange({ sort, direction: defaultDirection(sort) });
            }}
          />
          {/* The name begins with the visible word (WCAG 2.5.3, label in name): someone who
              says "click Asc" to their computer must hit this button. */}
          <Button
            aria-label={
              filters.direction === 'asc'
                ? 'Asc (sorted ascending, change to descending)'
                : 'Desc (sorted descending, change to ascending)'
            }
            onClick={() => onChange({ direction: filters.direction === 'asc' ? 'desc' : 'asc' })}
          >
            <span aria-hidden="true">{filters.direction === 'asc' ? '↑ Asc' : '↓ Desc'}</span>
          </Button>
        </div>
        <Collapsible.Root
          open={filtersOpen}
          onOpenChange={setFiltersOpen}
          className="flex flex-col gap-2"
        >
          <Collapsible.Trigger asChild>
            <Button className="self-start sm:hidden">
              {filtersOpen
                ? 'Hide filters'
                : activeFilters
                  ? `Filters (${activeFilters})`
                  : 'Filters'}
            </Button>
          </Collapsible.Trigger>
          <Collapsible.Content
            forceMount
            className="flex flex-wrap items-end gap-2 data-[state=closed]:hidden sm:data-[state=closed]:flex"
          >
            <SelectField
              className="w-40"
              label="Author"
              value={filters.author ?? all}
              options={options(facets.authors, 'All authors')}
              onChange={(value) => onChange({ author: value === all ? null : value })}
            />
            <SelectField
              className="w-32"
              label="Input"
              value={filters.inputModality ?? all}
              options={options(facets.inputModalities, 'Any input')}
              onChange={(value) => onChange({ inputModality: value === all ? null : value })}
            />
            <SelectField
              className="w-32"
              label="Output"
              value={filters.outputModality ?? all}
              options={options(facets.outputModalities, 'Any output')}
              onChange={(value) => onChange({ outputModality: value === all ? null : value })}
            />
            <SelectField
              className="w-32"
              label="Variant"
              value={filters.variant}
              options={['any', 'none', ...facets.variants].map((value) => ({
                value,
                label: variantLabel(value),
              }))}
              onChange={(value) => onChange({ variant: value })}
            />
            <FilterPopover
              label={
                filters.parameters.length
                  ? `Parameters (${filters.parameters.length})`
                  : 'Parameters'
              }
              name="Filter by parameters"
              active={filters.parameters.length > 0}
            >
              <fieldset>
                <legend className="mb-2 font-medium">Must support every checked parameter</legend>
                {facets.parameters.length === 0 && (
                  <p className="text-zinc-600 dark:text-zinc-400">No model lists any.</p>
                )}
                <div className="grid max-h-64 grid-cols-1 gap-1 overflow-y-auto">
                  {facets.parameters.map((parameter) => (
                    <label key={parameter} className="flex items-center gap-2 font-mono text-xs">
                      <input
                        type="checkbox"
                        className="size-4 accent-sky-700"
                        checked={filters.parameters.includes(parameter)}
                        onChange={(event) =>
                          onChange({
                            parameters: event.target.checked
                              ? [...filters.parameters, parameter]
                              : filters.parameters.filter((candidate) => candidate !== parameter),
                          })
                        }
                      />
                      {parameter}
                    </label>
                  ))}
                </div>
              </fieldset>
            </FilterPopover>
            <FilterPopover
              label={filters.priceMinimum || filters.priceMaximum ? 'Price (set)' : 'Price'}
              name="Filter by price"
              active={filters.priceMinimum !== '' || filters.priceMaximum !== ''}
            >
              <fieldset className="flex flex-col gap-2">
                <legend className="mb-1 font-medium">USD per million tokens</legend>
                <div className="flex gap-3">
                  {(['prompt', 'completion'] as const).map((basis) => (
                    <label key={basis} className="flex items-center gap-1.5">
                      <input
                        type="radio"
                        name="price-basis"
                        className="accent-sky-700"
                        checked={filters.priceBasis === basis}
                        onChange={() => onChange({ priceBasis: basis })}
                      />
                      {basis === 'prompt' ? 'Prompt' : 'Completion'}
                    </label>
                  ))}
                </div>
                <div className="flex items-center gap-2">
                  <label htmlFor={priceMinimumId} className="w-10">
                    From
                  </label>
                  <input
                    id={priceMinimumId}
                    inputMode="decimal"
                    placeholder="0"
                    value={filters.priceMinimum}
                    aria-invalid={readPriceBound(filters.priceMinimum).problem !== null}
                    onChange={(event) => onPriceMinimumChange(event.target.value)}
                    className="h-8 w-full rounded-md border border-zinc-300 bg-white px-2 dark:border-zinc-700 dark:bg-zinc-950"
                  />
                </div>
                <div className="flex items-center gap-2">
                  <label htmlFor={priceMaximumId} className="w-10">
                    To
                  </label>
                  <input
                    id={priceMaximumId}
                    inputMode="decimal"
                    placeholder="no limit"
                    value={filters.priceMaximum}
                    aria-invalid={readPriceBound(filters.priceMaximum).problem !== null}
                    onChange={(event) => onPriceMaximumChange(event.target.value)}
                    className="h-8 w-full rounded-md border border-zinc-300 bg-white px-2 dark:border-zinc-700 dark:bg-zinc-950"
                  />
                </div>
                {priceProblems.map((problem) => (
                  <p key={problem} role="alert" className="text-xs text-red-700 dark:text-red-300">
                    {problem} This bound is ignored.
                  </p>
                ))}
                {rangeProblem && (
                  <div
                    role="alert"
                    className="flex flex-col items-start gap-1 text-xs text-red-700 dark:text-red-300"
                  >
                    <p>{rangeProblem}</p>
                    <Button size="small" onClick={onSwapPrices}>
                      Swap From and To
                    </Button>
                  </div>
                )}
                <p className="text-xs text-zinc-600 dark:text-zinc-400">
                  Models without a known price are left out while a range is set.
                </p>
              </fieldset>
            </FilterPopover>
            {activeFilters > 0 && (
              <Button variant="ghost" onClick={onClear}>
                Clear filters ({activeFilters})
              </Button>
            )}
          </Collapsible.Content>
        </Collapsible.Root>
      </div>
    );
  },
);
