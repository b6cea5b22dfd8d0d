import { useId, useState } from 'react';
import type { EndpointStatsBucket } from '../../../../contract/gateway';
import type { EndpointStatsWindow, ProviderEndpoint } from '../../../../contract/workbench-api';
import { useCatalog } from '../../../api/catalog';
import { Button } from '../../../components/button';
import { classNames } from '../../../components/class-names';
import { ErrorPanel } from '../../../components/error-panel';
import { LoadingState } from '../../../components/states';
import { TextField } from '../../../components/text-field';
import { formatDateTime, formatPercent } from '../../../lib/format';
import { useModelEndpointStats, useModelEndpoints } from '../../../api/model-endpoints';
import {
  ProviderList,
  ProviderStatusBadge,
  trafficSummary,
} from '../../../components/provider-list';

const windowNames: Record<EndpointStatsWindow, string> = {
  '24h': 'last 24 hours',
  '7d': 'last 7 days',
};

/** When a bucket starts: the hour for the 24-hour window, the date too for the 7-day one. */
function bucketStart(start: number, window: EndpointStatsWindow): string {
  const text = formatDateTime(start, 'seconds');
  return window === '24h' ? text.slice(-5) : text;
}

/** The text alternative of one bar, e.g. "14:00: 98.3% of 120 requests". */
export function bucketLabel(bucket: EndpointStatsBucket, window: EndpointStatsWindow): string {
  const start = bucketStart(bucket.start, window);
  if (bucket.requests === 0 || bucket.uptime === null) return `${start}: no traffic`;
  const requests = `${bucket.requests.toLocaleString('en-US')} request${bucket.requests === 1 ? '' : 's'}`;
  return `${start}: ${formatPercent(bucket.uptime)} of ${requests}`;
}

/** Green from 99%, amber from 95%, red below; grey without traffic (not a failure). */
function barColour(uptime: number | null): string {
  if (uptime === null) return 'bg-zinc-200 dark:bg-zinc-700';
  if (uptime >= 0.99) return 'bg-emerald-500';
  if (uptime >= 0.95) return 'bg-amber-400';
  return 'bg-red-500';
}

function UptimeBars({
  provider,
  window,
  buckets,
}: {
  provider: string;
  window: EndpointStatsWindow;
  /** Null while the series loads or when it failed (said once, below the list). */
  buckets: EndpointStatsBucket[] | undefined | null;
}) {
  const name = `Uptime of ${provider}, ${windowNames[window]}`;
  return (
    <div className="flex items-center gap-2 text-xs">
      <span className="w-8 shrink-0 text-zinc-600 dark:text-zinc-400">{window}</span>
      {buckets === null ? (
        <span className="text-zinc-600 dark:text-zinc-400">…</span>
      ) : buckets === undefined || buckets.length === 0 ? (
        <span>No traffic recorded in the {windowNames[window]}</span>
      ) : (
        // The bars share the row's width (fixed 6 px bars filled 170 px of a 1,260 px row).
        <ol aria-label={name} className="flex min-w-0 flex-1 items-end gap-px">
          {buckets.map((bucket) => {
            const label = bucketLabel(bucket, window);
            return (
              <li key={bucket.start} title={label} className="max-w-12 min-w-0.5 flex-1">
                <span
                  aria-hidden="true"
                  className={classNames('block h-5 w-full rounded-sm', barColour(bucket.uptime))}
                />
                <span className="sr-only">{label}</span>
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}

function ProviderAvailability({
  endpoint,
  fetchedAt,
  now,
  series,
}: {
  endpoint: ProviderEndpoint;
  fetchedAt: number;
  now: number;
  series: Record<EndpointStatsWindow, EndpointStatsBucket[] | undefined | null>;
}) {
  return (
    <li className="flex flex-col gap-1.5 rounded-md border border-zinc-200 p-2.5 dark:border-zinc-800">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <span className="font-mono text-sm font-medium break-all">{endpoint.provider}</span>
        <ProviderStatusBadge endpoint={endpoint} fetchedAt={fetchedAt} now={now} />
      </div>
      <p className="text-xs">
        <span className="text-zinc-600 dark:text-zinc-400">Last 30 min: </span>
        {trafficSummary(endpoint)}
      </p>
      <UptimeBars provider={endpoint.provider} window="24h" buckets={series['24h']} />
      <UptimeBars provider={endpoint.provider} window="7d" buckets={series['7d']} />
    </li>
  );
}

/** The series of one model's providers, loaded when its row opens. */
function ModelAvailabilityDetail({ model, labelId }: { model: string; labelId: string }) {
  const endpointsQuery = useModelEndpoints(model);
  const day = useModelEndpointStats(model, '24h');
  const week = useModelEndpointStats(model, '7d');
  const seriesOf = (provider: string) => ({
    '24h': day.data ? day.data.data.find((entry) => entry.provider === provider)?.buckets : null,
    '7d': week.data ? week.data.data.find((entry) => entry.provider === provider)?.buckets : null,
  });
  const statsError = day.error ?? week.error;
  return (
    <div className="flex flex-col gap-2">
      <ProviderList query={endpointsQuery} labelledBy={labelId}>
        {(endpoint, clock) => (
          <ProviderAvailability
            endpoint={endpoint}
            {...clock}
            series={seriesOf(endpoint.provider)}
          />
        )}
      </ProviderList>
      {statsError && (
        <ErrorPanel
          what="Loading the uptime series"
          error={statsError}
          onRetry={() => {
            void day.refetch();
            void week.refetch();
          }}
        />
      )}
    </div>
  );
}

/**
 * One provider in a collapsed row: its name, last-30-minute uptime and breaker state. The
 * countdown is left to the open row, which ticks; a frozen one would mislead.
 */
function ProviderSummary({ endpoint }: { endpoint: ProviderEndpoint }) {
  return (
    <li className="flex items-center gap-1.5 text-xs">
      <span className="font-mono break-all">{endpoint.provider}</span>
      <span className="tabular-nums">
        {endpoint.uptime_last_30m === null ? 'no traffic' : formatPercent(endpoint.uptime_last_30m)}
      </span>
      <ProviderStatusBadge endpoint={{ ...endpoint, retry_after: null }} fetchedAt={0} now={0} />
    </li>
  );
}

function ModelAvailabilityRow({
  model,
  expanded,
  onToggle,
}: {
  model: string;
  expanded: boolean;
  onToggle: () => void;
}) {
  const id = useId();
  const labelId = `${id}-label`;
  const bodyId = `${id}-body`;
  const endpointsQuery = useModelEndpoints(model);
  const endpoints = endpointsQuery.data?.endpoints ?? [];
  return (
    <li className="rounded-md border border-zinc-200 dark:border-zinc-800">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 p-2">
        <button
          type="button"
          aria-expanded={expanded}
          aria-controls={bodyId}
          onClick={onToggle}
          className="flex min-h-8 min-w-0 items-center gap-1.5 rounded-md px-1 text-left text-sm font-medium hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-sky-700 dark:hover:bg-zinc-800"
        >
          <span aria-hidden="true" className="w-3 shrink-0 text-zinc-600 dark:text-zinc-400">
            {expanded ? '▾' : '▸'}
          </span>
          <span className="font-mono break-all">{model}</span>
        </button>
        <span id={labelId} className="sr-only">
          Provider availability of {model}
        </span>
        {endpointsQuery.isPending ? (
          <span className="text-xs text-zinc-600 dark:text-zinc-400">Loading the providers…</span>
        ) : endpointsQuery.isError ? (
          <span className="text-xs text-red-700 dark:text-red-300">
            The providers could not be read{expanded ? '' : '; open the row for details'}
          </span>
        ) : endpoints.length === 0 ? (
          <span className="text-xs text-zinc-600 dark:text-zinc-400">No provider listed</span>
        ) : (
          <ul
            aria-label={`Providers of ${model}, last 30 minutes`}
            className="flex flex-wrap gap-x-3 gap-y-1"
          >
            {endpoints.map((endpoint) => (
              <ProviderSummary key={`${endpoint.order}-${endpoint.provider}`} endpoint={endpoint} />
            ))}
          </ul>
        )}
      </div>
      <div
        id={bodyId}
        hidden={!expanded}
        className="border-t border-zinc-200 p-2 dark:border-zinc-800"
      >
        {expanded && <ModelAvailabilityDetail model={model} labelId={labelId} />}
      </div>
    </li>
  );
}

/** Rows shown at first, and added by each "Show more": each row asks for its providers. */
export const availabilityPageSize = 20;

/**
 * How the providers of each catalog model fared with real traffic of all keys: one row per
 * model with each provider's last-30-minute uptime and breaker state; opening a row loads its
 * uptime bars over 24 hours and 7 days. `firstModel` (the one the checks call) leads, open.
 */
export function AvailabilitySection({ firstModel }: { firstModel: string | null }) {
  const headingId = useId();
  const catalog = useCatalog();
  const [filter, setFilter] = useState('');
  const [shown, setShown] = useState(availabilityPageSize);
  const [toggled, setToggled] = useState<Record<string, boolean>>({});

  const catalogIds = catalog.data?.models.map((model) => model.id) ?? [];
  const ids =
    firstModel === null
      ? catalogIds
      : [firstModel, ...catalogIds.filter((candidate) => candidate !== firstModel)];
  const needle = filter.trim().toLowerCase();
  const matching = needle === '' ? ids : ids.filter((id) => id.toLowerCase().includes(needle));
  const visible = matching.slice(0, shown);
  const isExpanded = (model: string) => toggled[model] ?? model === firstModel;

  return (
    <section
      aria-labelledby={headingId}
      className="flex flex-col gap-2 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800"
    >
      <div className="flex flex-wrap items-end justify-between gap-x-4 gap-y-2">
        <div className="flex min-w-0 flex-col gap-1">
          <h2 id={headingId} className="text-sm font-semibold">
            Provider availability
          </h2>
          <p className="text-xs text-zinc-600 dark:text-zinc-400">
            From real traffic of all keys: uptime over the last 30 minutes and each provider’s
            breaker state. Open a model for its uptime bars (24 h, 7 d), latency and time to first
            token. The checks above probe each route now.
          </p>
        </div>
        {ids.length > availabilityPageSize && (
          <TextField
            label="Find a model"
            type="search"
            value={filter}
            onChange={(event) => {
              setFilter(event.target.value);
              setShown(availabilityPageSize);
            }}
            className="w-full sm:w-64"
          />
        )}
      </div>
      {catalog.isError && (
        // Said even when the checks' model still has its row: the other models are missing.
        <ErrorPanel
          what="Loading the catalog"
          error={catalog.error}
          onRetry={() => void catalog.refetch()}
        />
      )}
      {catalog.isPending && firstModel === null ? (
        <LoadingState>Loading the catalog…</LoadingState>
      ) : catalog.isError && ids.length === 0 ? null : matching.length === 0 ? (
        <p className="text-sm">
          {needle === '' ? 'The catalog lists no model.' : `No model matches “${filter.trim()}”.`}
        </p>
      ) : (
        <ul aria-labelledby={headingId} className="flex flex-col gap-1.5">
          {visible.map((model) => (
            <ModelAvailabilityRow
              key={model}
              model={model}
              expanded={isExpanded(model)}
              onToggle={() =>
                setToggled((current) => ({ ...current, [model]: !isExpanded(model) }))
              }
            />
          ))}
        </ul>
      )}
      {matching.length > visible.length && (
        <div className="flex flex-wrap items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">
          <span>
            Showing {visible.length} of {matching.length} models.
          </span>
          <Button
            size="small"
            onClick={() => setShown((current) => current + availabilityPageSize)}
          >
            Show {Math.min(availabilityPageSize, matching.length - visible.length)} more
          </Button>
        </div>
      )}
    </section>
  );
}
