import { useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useCatalog } from '../../api/catalog';
import { useHealth } from '../../api/health';
import { Button } from '../../components/button';
import { ErrorPanel } from '../../components/error-panel';
import { PageLayout } from '../../components/page-layout';
import { EmptyState, LoadingState } from '../../components/states';
import { formatTime } from '../../lib/format';
import {
  collectFacets,
  defaultDirection,
  defaultFilters,
  filterModels,
  indexModels,
  readFilters,
  sortModels,
  writeFilters,
  type CatalogFilters,
  type SortField,
} from './catalog-filters';
import { CatalogToolbar } from './components/catalog-toolbar';
import { ModelDetailDialog } from './components/model-detail-dialog';
import { ModelList } from './components/model-list';

/** `/catalog`: every model, searchable, filterable and sortable, with a detail panel. */
export function CatalogPage() {
  const catalogQuery = useCatalog();
  const health = useHealth();
  const [searchParams, setSearchParams] = useSearchParams();
  const filters = useMemo(() => readFilters(searchParams), [searchParams]);
  const selectedId = searchParams.get('model');
  const searchRef = useRef<HTMLInputElement>(null);

  // The search box keeps its own text so typing never waits for the URL; the URL follows it.
  const [searchText, setSearchText] = useState(filters.search);
  const lastWrittenSearch = useRef(filters.search);
  useEffect(() => {
    // Only a change that did not come from typing here (back button, a link) resets the box.
    if (filters.search !== lastWrittenSearch.current) {
      lastWrittenSearch.current = filters.search;
      setSearchText(filters.search);
    }
  }, [filters.search]);
  const deferredSearch = useDeferredValue(searchText);

  useEffect(() => {
    function focusSearch(event: KeyboardEvent) {
      const target = event.target as HTMLElement | null;
      const typing = target?.closest(
        'input, textarea, select, [contenteditable="true"], [role="dialog"]',
      );
      if (event.key === '/' && !typing && !event.metaKey && !event.ctrlKey && !event.altKey) {
        event.preventDefault();
        searchRef.current?.focus();
      }
    }
    window.addEventListener('keydown', focusSearch);
    return () => window.removeEventListener('keydown', focusSearch);
  }, []);

  function updateFilters(change: Partial<CatalogFilters>) {
    setSearchParams((current) => writeFilters(current, { ...readFilters(current), ...change }), {
      replace: true,
    });
  }

  function changeSearchText(text: string) {
    setSearchText(text);
    lastWrittenSearch.current = text;
    updateFilters({ search: text });
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

  function openModel(id: string) {
    setSearchParams((current) => {
      const next = new URLSearchParams(current);
      next.set('model', id);
      return next;
    });
  }

  function closeModel() {
    setSearchParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete('model');
        return next;
      },
      { replace: true },
    );
  }

  const models = catalogQuery.data?.models;
  const indexed = useMemo(() => indexModels(models ?? []), [models]);
  const facets = useMemo(() => collectFacets(models ?? []), [models]);
  const visible = useMemo(
    () =>
      sortModels(
        filterModels(indexed, { ...filters, search: deferredSearch }),
        filters.sort,
        filters.direction,
      ),
    [indexed, filters, deferredSearch],
  );
  const selected = selectedId ? (models?.find((model) => model.id === selectedId) ?? null) : null;

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
        <Button onClick={() => void catalogQuery.refetch()} disabled={catalogQuery.isFetching}>
          {catalogQuery.isFetching && catalogQuery.data ? 'Refreshing…' : 'Refresh'}
        </Button>
      }
    >
      <CatalogToolbar
        ref={searchRef}
        filters={filters}
        searchText={searchText}
        onSearchTextChange={changeSearchText}
        facets={facets}
        onChange={updateFilters}
        onClear={() => {
          setSearchText('');
          lastWrittenSearch.current = '';
          updateFilters({ ...defaultFilters, sort: filters.sort, direction: filters.direction });
        }}
      />
      {skipped > 0 && (
        <p className="text-xs text-amber-800 dark:text-amber-300">
          {skipped} catalog {skipped === 1 ? 'entry was' : 'entries were'} left out because{' '}
          {skipped === 1 ? 'it has' : 'they have'} no id.
        </p>
      )}
      {catalogQuery.isPending ? (
        <LoadingState>Loading the catalog…</LoadingState>
      ) : catalogQuery.isError ? (
        <ErrorPanel
          what="Loading the catalog"
          error={catalogQuery.error}
          onRetry={() => void catalogQuery.refetch()}
        />
      ) : total === 0 ? (
        <EmptyState title="The catalog is empty">
          The gateway lists no models. Check its catalog configuration, then refresh.
        </EmptyState>
      ) : visible.length === 0 ? (
        <EmptyState title="No model matches">
          Change the search or{' '}
          <button
            type="button"
            className="text-sky-700 underline dark:text-sky-400"
            onClick={() => {
              setSearchText('');
              lastWrittenSearch.current = '';
              updateFilters({
                ...defaultFilters,
                sort: filters.sort,
                direction: filters.direction,
              });
            }}
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
      <ModelDetailDialog
        model={selected}
        missingId={selectedId && models && !selected ? selectedId : null}
        gatewayBaseUrl={health.data?.gateway_base_url}
        onClose={closeModel}
      />
    </PageLayout>
  );
}
