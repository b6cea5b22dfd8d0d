/**
 * `/activity`: where the chosen profile's money went. The requests (newest first, with their
 * cf-ray) in an infinite table; spend per day by model and requests per day in charts; the
 * range's totals; Export CSV. The filters live in the URL (activity-filters.ts). The charts, the
 * totals and the CSV come from one summary of the gateway's daily activity, so they agree to the
 * nano-dollar; the charting library loads only here (React.lazy).
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useMemo, useRef, useState } from 'react';
import { Link } from 'react-router';
import type { GenerationOutcome } from '../../../contract/workbench-api';
import { useCatalog } from '../../api/catalog';
import { useProfiles } from '../../api/profiles';
import { useProfile } from '../../app/profile-context';
import { Button } from '../../components/button';
import { ErrorPanel } from '../../components/error-panel';
import { PageLayout } from '../../components/page-layout';
import { EmptyState, LoadingState } from '../../components/states';
import { downloadFile } from '../../lib/download';
import { useNow } from '../../lib/use-now';
import { useSearchParamState } from '../../lib/use-search-param-state';
import { childKeysQueryOptions } from '../../api/child-keys';
import {
  activityDaysFor,
  describeRange,
  generationsWindow,
  modelFilterNote,
  readActivityFilters,
  withPreset,
  withRange,
} from './activity-filters';
import { csvFileName, modelsOf, summarizeActivity, summaryToCsv } from './activity-summary';
import { useActivity } from '../../api/activity';
import { useGenerations } from './api/generations';
import { useAgentSessions } from './api/sessions';
import { useBatches } from './api/batches';
import { fetchAllRequests, maxExportedRequests, requestsToCsv } from './requests-csv';
import { ActivityToolbar } from './components/activity-toolbar';
import { ActivityTotals } from './components/activity-totals';
import { RequestDetailDialog } from './components/request-detail-dialog';
import { RequestsTable } from './components/requests-table';
import { SessionsTable } from './components/sessions-table';
import { BatchesTable } from './components/batches-table';
import { NewBatch } from './components/new-batch';

const ActivityCharts = lazy(() => import('./components/activity-charts'));

export function ActivityPage() {
  const { profile, profiles } = useProfile();
  const profilesQuery = useProfiles();
  const { searchParams, update, setParam } = useSearchParamState();
  // The range is counted in UTC days; a minute's precision is enough to roll over at midnight.
  const now = useNow(60_000);
  const filters = useMemo(() => readActivityFilters(searchParams, now), [searchParams, now]);
  const days = activityDaysFor(filters, now);
  const window_ = generationsWindow(filters);
  const identity = profiles.find((candidate) => candidate.name === profile)?.identity ?? null;
  // Only an account key sees other keys' records; for any other profile `key_id` would only
  // narrow its own history to nothing.
  const keyId = identity === 'account' ? filters.keyId : null;
  const generationFilters = useMemo(
    () => ({
      from: window_.from,
      to: window_.to,
      model: filters.model,
      outcome: filters.outcome,
      keyId,
      sessionId: filters.sessionId,
      traceId: filters.traceId,
    }),
    [
      window_.from,
      window_.to,
      filters.model,
      filters.outcome,
      keyId,
      filters.sessionId,
      filters.traceId,
    ],
  );

  const activity = useActivity(profile, days, keyId);
  const sessions = useAgentSessions(profile, days, keyId);
  const batches = useBatches(profile);
  const childKeys = useQuery({
    ...childKeysQueryOptions(profile ?? ''),
    enabled: profile !== null && identity === 'account',
  });
  const keyOptions = useMemo(() => {
    if (identity !== 'account') return null;
    const children = childKeys.data?.keys ?? [];
    // The account key's own requests, apart from its children's: its id is their parent's.
    const accountId = children.find((key) => key.parent_id !== null)?.parent_id ?? null;
    return [
      ...(accountId ? [{ value: accountId, label: `${profile} itself (the account key)` }] : []),
      ...children.map((key) => ({
        value: key.id,
        label: key.name ? `${key.name} (${key.key})` : key.key,
      })),
    ];
  }, [identity, childKeys.data, profile]);
  const generations = useGenerations(profile, generationFilters);
  const queryClient = useQueryClient();

  const summary = useMemo(
    () =>
      activity.data
        ? summarizeActivity(activity.data, { from: filters.from, to: filters.to }, filters.model)
        : null,
    [activity.data, filters.from, filters.to, filters.model],
  );
  const models = useMemo(() => modelsOf(activity.data), [activity.data]);
  // The catalog says whether a model filter with no activity names a model at all.
  const catalog = useCatalog();
  const catalogIds = useMemo(
    () => (catalog.data ? new Set(catalog.data.models.map((entry) => entry.id)) : null),
    [catalog.data],
  );
  const modelNote = summary
    ? modelFilterNote(filters.model, summary.models, catalogIds, describeRange(filters))
    : null;
  const rows = useMemo(
    () => generations.data?.pages.flatMap((page) => page.data) ?? [],
    [generations.data],
  );
  const showKey = identity === 'account' || rows.some((row) => row.child !== null);
  const markedKeys = identity === 'account' ? 'children' : 'replaced';
  // The open request is looked up in the rows, so a Refresh updates its settlement in place.
  const [openId, setOpenId] = useState<string | null>(null);
  // A trace id from the URL (the playground's link) opens its request until it is closed once.
  const [closedTraceId, setClosedTraceId] = useState<string | null>(null);
  const shownId = openId ?? (filters.traceId !== closedTraceId ? filters.traceId : null);
  const openRequest = shownId === null ? null : (rows.find((row) => row.id === shownId) ?? null);
  // Radix asks where focus goes after the panel has closed, when no id is open any more.
  const lastShownId = useRef<string | null>(null);
  const closeRequest = () => {
    lastShownId.current = shownId;
    setOpenId(null);
    setClosedTraceId(filters.traceId);
  };
  const focusOpener = (event: Event) => {
    // Back to the cf-ray that opened it, in the layout in view (each row has a wide and a narrow
    // one); the row may have scrolled out of the virtual table's DOM, then Radix decides.
    const opener = [
      ...document.querySelectorAll<HTMLElement>(
        `[data-request-details="${CSS.escape(lastShownId.current ?? '')}"]`,
      ),
    ].find((element) => element.offsetParent !== null);
    if (opener) {
      event.preventDefault();
      opener.focus();
    }
  };

  const { hasNextPage, isFetchingNextPage, fetchNextPage } = generations;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  function refresh() {
    void queryClient.invalidateQueries({ queryKey: ['activity'] });
    void queryClient.invalidateQueries({ queryKey: ['generations'] });
  }
  const sessionRows = sessions.data?.data ?? [];

  function exportCsv() {
    if (!summary || !profile) return;
    downloadFile(
      csvFileName(profile, summary, filters.model),
      new Blob([summaryToCsv(summary)], { type: 'text/csv' }),
    );
  }

  const [exporting, setExporting] = useState<{ error: unknown } | 'running' | null>(null);
  async function exportRequestsCsv() {
    if (!summary || !profile) return;
    setExporting('running');
    try {
      const { requests, truncated } = await fetchAllRequests(profile, generationFilters);
      const name = csvFileName(profile, summary, filters.model).replace(/^activity-/, 'requests-');
      downloadFile(name, new Blob([requestsToCsv(requests, profile)], { type: 'text/csv' }));
      setExporting(
        truncated
          ? {
              error: new Error(
                `Only the newest ${maxExportedRequests} requests were exported: choose a shorter range for the rest.`,
              ),
            }
          : null,
      );
    } catch (error) {
      setExporting({ error });
    }
  }

  const filtered =
    filters.model !== null ||
    filters.outcome !== null ||
    keyId !== null ||
    filters.sessionId !== null ||
    filters.traceId !== null;
  const clearFilters = () =>
    update((current) => {
      current.delete('id');
      current.delete('model');
      current.delete('outcome');
      current.delete('key_id');
      current.delete('session_id');
      return current;
    });
  const nothingInRange =
    summary !== null && summary.totals.requests === 0 && generations.isSuccess && rows.length === 0;

  return (
    <PageLayout
      title="Activity"
      description="Where the chosen key’s money went: every request with its cost and cf-ray, spend per day by model, and totals. Days are UTC."
      actions={
        <>
          <Button onClick={refresh} disabled={activity.isFetching || generations.isFetching}>
            Refresh
          </Button>
          <Button
            onClick={() => void exportRequestsCsv()}
            disabled={!summary || exporting === 'running'}
          >
            {exporting === 'running' ? 'Exporting…' : 'Export requests CSV'}
          </Button>
          <Button variant="primary" onClick={exportCsv} disabled={!summary}>
            Export CSV
          </Button>
        </>
      }
    >
      {profile === null ? (
        profilesQuery.isPending ? (
          <LoadingState>Loading key profiles…</LoadingState>
        ) : profilesQuery.isError ? (
          <ErrorPanel
            what="Loading the key profiles"
            error={profilesQuery.error}
            onRetry={() => void profilesQuery.refetch()}
          />
        ) : (
          <EmptyState title="No key profiles">
            Start the workbench with <code className="font-mono">WORKBENCH_KEYS_FILE</code> or{' '}
            <code className="font-mono">GATEWAY_API_KEY</code> set.
          </EmptyState>
        )
      ) : (
        <>
          <ActivityToolbar
            filters={filters}
            nowMs={now}
            models={models}
            keys={keyOptions}
            onPreset={(presetDays) => update((current) => withPreset(current, presetDays))}
            onDates={(change) => update((current) => withRange(current, filters, change))}
            onModel={(model) => setParam('model', model)}
            onOutcome={(outcome: GenerationOutcome | null) => setParam('outcome', outcome)}
            onKey={(id) => setParam('key_id', id)}
            onTraceId={(traceId) => setParam('id', traceId)}
            onClear={clearFilters}
          />
          {exporting !== null && exporting !== 'running' && (
            <ErrorPanel what="Exporting the requests" error={exporting.error} />
          )}
          {filters.corrected && (
            <p role="status" className="text-xs text-amber-800 dark:text-amber-300">
              The address asked for something the gateway cannot show: {filters.corrected}
            </p>
          )}

          {activity.isPending ? (
            <LoadingState>Loading the activity of {profile}…</LoadingState>
          ) : activity.isError ? (
            <ErrorPanel
              what={`Loading the activity of “${profile}”`}
              error={activity.error}
              onRetry={() => void activity.refetch()}
            />
          ) : nothingInRange && !filtered && summary ? (
            <>
              {/* An empty range is a fact ("$0.00, 0 requests"), not only onboarding. */}
              <ActivityTotals summary={summary} model={filters.model} />
              <EmptyState title={`No requests by ${profile} in this range`}>
                <p>
                  Each request made with this key shows here with its cost and cf-ray. Make the
                  first one in the{' '}
                  <Link
                    to="/playground"
                    className="font-medium text-sky-700 underline dark:text-sky-400"
                  >
                    Playground
                  </Link>
                  : pick a model, type a message and press Send. Or choose a longer range above.
                </p>
              </EmptyState>
            </>
          ) : summary ? (
            <>
              {modelNote && (
                <p role="status" className="text-sm text-amber-800 dark:text-amber-300">
                  {modelNote}
                </p>
              )}
              <ActivityTotals summary={summary} model={filters.model} />
              {filters.outcome && (
                <p className="text-xs text-zinc-600 dark:text-zinc-400">
                  The totals and charts count every outcome; the outcome filter narrows the table of
                  requests only.
                </p>
              )}
              <Suspense fallback={<LoadingState>Loading the charts…</LoadingState>}>
                <ActivityCharts
                  summary={summary}
                  onSelectDay={(date) =>
                    update((current) => withRange(current, filters, { from: date, to: date }))
                  }
                />
              </Suspense>
            </>
          ) : null}

          {/* Keyed: another profile's file and batch are not this one's to show. */}
          <NewBatch key={profile} profile={profile} />
          {(batches.data?.data.length ?? 0) > 0 && <BatchesTable batches={batches.data!.data} />}

          {sessionRows.length > 0 && (
            <SessionsTable
              sessions={sessionRows}
              selected={filters.sessionId}
              onSelect={(sessionId) => setParam('session_id', sessionId)}
            />
          )}

          {!(nothingInRange && !filtered) && (
            <section aria-labelledby="requests-heading" className="flex flex-col gap-2">
              <h2 id="requests-heading" className="text-sm font-semibold">
                Requests
                {filters.sessionId && (
                  <>
                    {' '}
                    · session <span className="font-mono font-normal">{filters.sessionId}</span>
                  </>
                )}
              </h2>
              {generations.isPending ? (
                <LoadingState>Loading the requests of {profile}…</LoadingState>
              ) : generations.isError && rows.length === 0 ? (
                <ErrorPanel
                  what={`Loading the requests of “${profile}”`}
                  error={generations.error}
                  onRetry={() => void generations.refetch()}
                />
              ) : rows.length === 0 ? (
                filters.traceId ? (
                  <EmptyState title={`No request ${filters.traceId} among ${profile}’s requests`}>
                    <p>
                      The gateway records a request once a provider starts answering it; one refused
                      or failed before that (a bad key, no budget, an invalid body, every provider
                      down) has no record. Check the profile chosen above, or clear the search.
                    </p>
                    <Button variant="ghost" onClick={clearFilters}>
                      Clear filters
                    </Button>
                  </EmptyState>
                ) : filtered ? (
                  <EmptyState title="No requests match these filters">
                    <Button variant="ghost" onClick={clearFilters}>
                      Clear filters
                    </Button>
                  </EmptyState>
                ) : (
                  <EmptyState title="No requests in this range" />
                )
              ) : (
                <>
                  <RequestsTable
                    rows={rows}
                    showKey={showKey}
                    markedKeys={markedKeys}
                    hasMore={hasNextPage}
                    loadingMore={isFetchingNextPage}
                    onLoadMore={loadMore}
                    onOpenRequest={setOpenId}
                  />
                  <RequestDetailDialog
                    request={openRequest}
                    markedKeys={markedKeys}
                    onClose={closeRequest}
                    onCloseAutoFocus={focusOpener}
                  />
                  {generations.isFetchNextPageError && (
                    <ErrorPanel
                      what="Loading more requests"
                      error={generations.error}
                      onRetry={loadMore}
                    />
                  )}
                </>
              )}
            </section>
          )}
        </>
      )}
    </PageLayout>
  );
}
