import { lazy, Suspense, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { useAllowedModels } from '../../api/balance';
import { useCatalog, useRefreshCatalog } from '../../api/catalog';
import { useProfile } from '../../app/profile-context';
import { useHealth } from '../../api/health';
import { Button } from '../../components/button';
import { ErrorPanel } from '../../components/error-panel';
import { PageLayout } from '../../components/page-layout';
import { EmptyState, LoadingState } from '../../components/states';
import { formatTime } from '../../lib/format';
import { useSearchParamState, useUrlBoundText } from '../../lib/use-search-param-state';
import {
  collectFacets,
  defaultDirection,
  defaultFilters,
  filterModels,
  indexModels,
  priceRangeProblem,
  readFilters,
  sanitizeFilters,
  sortModels,
  writeFilters,
  type CatalogFilters,
  type SortField,
} from './catalog-filters';
import { CatalogToolbar } from './components/catalog-toolbar';
import { ModelList } from './components/model-list';

// The detail panel (with Radix's dialog and the providers' table) loads when first opened, so the
// first page does not wait for it.
const ModelDetailDialog = lazy(() =>
  import('./components/model-detail-dialog').then((module) => ({
    default: module.ModelDetailDialog,
  })),
);

/** The detail panel's frame while its code loads: the same place and size, with a loading line. */
function ModelDetailLoading() {
  return (
    <>
      <div className="fixed inset-0 z-40 bg-zinc-950/40" />
      <div className="fixed inset-y-0 right-0 z-50 flex w-full max-w-2xl flex-col border-l border-zinc-200 bg-white px-4 shadow-xl dark:border-zinc-800 dark:bg-zinc-950">
        <LoadingState>Loading the model’s details…</LoadingState>
      </div>
    </>
  );
}

/** True when a key press lands in something that takes text (or in a dialog): `/` is typed there. */
function takesTyping(event: KeyboardEvent): boolean {
  const elements = [event.target, document.activeElement].filter(
    (candidate): candidate is HTMLElement => candidate instanceof HTMLElement,
  );
  return elements.some(
    (element) =>
      element.isContentEditable ||
      element.closest(
        'input, textarea, select, [contenteditable], [role="combobox"], [role="textbox"], [role="searchbox"], [role="spinbutton"], [role="dialog"], [role="listbox"], [role="menu"]',
      ) !== null,
  );
}

/** `/catalog`: every model, searchable, filterable and sortable, with a detail panel. */
export function CatalogPage() {
  const catalogQuery = useCatalog();
  const refreshCatalog = useRefreshCatalog();
  const health = useHealth();
  const { searchParams, update } = useSearchParamState();
  const urlFilters = useMemo(() => readFilters(searchParams), [searchParams]);
  const selectedId = searchParams.get('model');
  const searchRef = useRef<HTMLInputElement>(null);

  // Only what the chosen profile's key may use (its `allowed_models`), and the page says so.
  const { profile } = useProfile();
  const allowed = useAllowedModels(profile);
  const allModels = catalogQuery.data?.models;
  const models = useMemo(
    () => allModels?.filter((model) => allowed.allows(model.id)),
    [allModels, allowed],
  );
  const facets = useMemo(() => collectFacets(models ?? []), [models]);
  // Values no model has (a stale or mistyped link) are ignored, and the page says which.
  const { filters, ignored } = useMemo(
    () =>
      models && models.length > 0
        ? sanitizeFilters(urlFilters, facets)
        : { filters: urlFilters, ignored: [] },
    [urlFilters, facets, models],
  );

  /** One deliberate change, one history entry: Back undoes it. */
  function updateFilters(change: Partial<CatalogFilters>) {
    update((current) => {
      const known =
        models && models.length > 0 ? sanitizeFilters(readFilters(current), facets) : null;
      return writeFilters(current, { ...(known?.filters ?? readFilters(current)), ...change });
    });
  }

  // Typed text stays here so no keystroke waits for the URL; the URL follows after a pause.
  const search = useUrlBoundText(filters.search, (text) => updateFilters({ search: text }));
  const priceMinimum = useUrlBoundText(filters.priceMinimum, (text) =>
    updateFilters({ priceMinimum: text }),
  );
  const priceMaximum = useUrlBoundText(filters.priceMaximum, (text) =>
    updateFilters({ priceMaximum: text }),
  );
  const deferredSearch = useDeferredValue(search.text);
  const shownFilters: CatalogFilters = {
    ...filters,
    search: search.text,
    priceMinimum: priceMinimum.text,
    priceMaximum: priceMaximum.text,
  };
  const rangeProblem = priceRangeProblem(priceMinimum.text, priceMaximum.text);

  useEffect(() => {
    function focusSearch(event: KeyboardEvent) {
      if (event.key !== '/' || event.defaultPrevented || event.isComposing) return;
      if (event.metaKey || event.ctrlKey || event.altKey || takesTyping(event)) return;
      event.preventDefault();
      searchRef.current?.focus();
    }
    window.addEventListener('keydown', focusSearch);
    return () => window.removeEventListener('keydown', focusSearch);
  }, []);

  function clearFilters() {
    search.reset('');
    priceMinimum.reset('');
    priceMaximum.reset('');
    updateFilters({ ...defaultFilters, sort: filters.sort, direction: filters.direction });
  }

  function swapPrices() {
    const [minimum, maximum] = [priceMaximum.text, priceMinimum.text];
    priceMinimum.reset(minimum);
    priceMaximum.reset(maximum);
    updateFilters({ priceMinimum: minimum, priceMaximum: maximum });
  }

  function sortBy(field: SortField) {
    const direction =
      field === filters.sort
        ? filters.direction === 'asc'
          ? 'desc'
          : 'asc'
        : defaultDirection(field);
    updateFilters({ sort: field, direction });
  }

  // The row that opened the panel gets the focus back when it closes.
  const openedFrom = useRef<string | null>(selectedId);
  function openModel(id: string) {
    openedFrom.current = id;
    update((current) => {
      current.set('model', id);
      return current;
    });
  }

  function closeModel() {
    update((current) => {
      current.delete('model');
      return current;
    }, 'replace');
  }

  function returnFocus() {
    const id = openedFrom.current;
    const row = id
      ? document.querySelector<HTMLElement>(`[data-model-id="${CSS.escape(id)}"] button`)
      : null;
    (row ?? searchRef.current)?.focus();
  }

  const indexed = useMemo(() => indexModels(models ?? []), [models]);
  const minimumText = priceMinimum.text;
  const maximumText = priceMaximum.text;
  const visible = useMemo(
    () =>
      sortModels(
        filterModels(indexed, {
          ...filters,
          search: deferredSearch,
          priceMinimum: minimumText,
          priceMaximum: maximumText,
        }),
        filters.sort,
        filters.direction,
      ),
    [indexed, filters, deferredSearch, minimumText, maximumText],
  );
  const selected = selectedId ? (models?.find((model) => model.id === selectedId) ?? null) : null;
  const missingId = selectedId && models && !selected ? selectedId : null;
  // Once opened, the panel stays mounted: closing it is then Radix's own (focus return included).
  const [detailWanted, setDetailWanted] = useState(false);
  if (!detailWanted && (selected !== null || missingId !== null)) setDetailWanted(true);

  const total = models?.length ?? 0;
  const skipped = catalogQuery.data?.skipped ?? 0;

  return (
    <PageLayout
      title="Catalog"
      description={
        catalogQuery.data ? (
          <span aria-live="polite">
            {visible.length === total
              ? `${total.toLocaleString('en-US')} models`
              : `${visible.length.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} models`}
            {' · prices in USD per million tokens · fetched '}
            {formatTime(catalogQuery.data.fetched_at)}
          </span>
        ) : (
          'The gateway’s public model list'
        )
      }
      actions={
        <Button
          onClick={() => void refreshCatalog()}
          disabled={catalogQuery.isFetching}
          title="Fetch the catalog from the gateway now (the workbench otherwise reuses it for a short while)"
        >
          {catalogQuery.isFetching && catalogQuery.data ? 'Refreshing…' : 'Refresh'}
        </Button>
      }
    >
      <CatalogToolbar
        ref={searchRef}
        filters={shownFilters}
        onSearchTextChange={search.type}
        onSearchClear={() => search.set('')}
        onPriceMinimumChange={priceMinimum.type}
        onPriceMaximumChange={priceMaximum.type}
        rangeProblem={rangeProblem}
        onSwapPrices={swapPrices}
        facets={facets}
        onChange={updateFilters}
        onClear={clearFilters}
      />
      {allowed.list && (
        <p role="note" className="text-xs text-zinc-600 dark:text-zinc-400">
          {`The profile ${profile ?? ''} may use only ${allowed.list.join(', ')}: ${hiddenModels(allModels, models)} not listed.`}
        </p>
      )}
      {ignored.length > 0 && (
        <p role="status" className="text-xs text-amber-800 dark:text-amber-300">
          Ignored from the link, because no model in the catalog has{' '}
          {ignored.length === 1 ? 'it' : 'them'}:{' '}
          {ignored.map((entry, index) => (
            <span key={`${entry.name}=${entry.value}`}>
              {index > 0 && ', '}
              <code className="font-mono">
                {entry.name}={entry.value}
              </code>
            </span>
          ))}
          .
        </p>
      )}
      {skipped > 0 && (
        <p className="text-xs text-amber-800 dark:text-amber-300">
          {skipped} catalog {skipped === 1 ? 'entry was' : 'entries were'} left out because{' '}
          {skipped === 1 ? 'it has' : 'they have'} no id.
        </p>
      )}
      {catalogQuery.isError && (
        <ErrorPanel
          what={catalogQuery.data ? 'Refreshing the catalog' : 'Loading the catalog'}
          error={catalogQuery.error}
          onRetry={() => void refreshCatalog()}
        />
      )}
      {catalogQuery.isError && catalogQuery.data && (
        <p className="text-xs text-amber-800 dark:text-amber-300">
          Below is the catalog as fetched at {formatTime(catalogQuery.data.fetched_at)}: it may be
          out of date.
        </p>
      )}
      {catalogQuery.isPending ? (
        <LoadingState>Loading the catalog…</LoadingState>
      ) : !catalogQuery.data ? null : total === 0 ? (
        <EmptyState title="The catalog is empty">
          The gateway lists no models. Check its catalog configuration, then refresh.
        </EmptyState>
      ) : visible.length === 0 ? (
        <EmptyState title="No model matches">
          {rangeProblem ? `${rangeProblem} ` : null}
          Change the search or{' '}
          <button
            type="button"
            className="text-sky-700 underline dark:text-sky-400"
            onClick={clearFilters}
          >
            clear every filter
          </button>
          .
        </EmptyState>
      ) : (
        <ModelList
          models={visible}
          sort={filters.sort}
          direction={filters.direction}
          onSort={sortBy}
          onOpen={openModel}
        />
      )}
      {detailWanted && (
        <Suspense fallback={<ModelDetailLoading />}>
          <ModelDetailDialog
            model={selected}
            missingId={missingId}
            gatewayBaseUrl={health.data?.gateway_base_url}
            onClose={closeModel}
            onCloseAutoFocus={(event) => {
              event.preventDefault();
              returnFocus();
            }}
          />
        </Suspense>
      )}
    </PageLayout>
  );
}

/** "1 other model of the catalog is", "3 other … are": what the profile's list hides. */
function hiddenModels(all: unknown[] | undefined, shown: unknown[] | undefined): string {
  const count = (all?.length ?? 0) - (shown?.length ?? 0);
  return count === 1
    ? '1 other model of the catalog is'
    : `${count} other models of the catalog are`;
}
