import { useId } from 'react';
import type { EndpointStatsBucket } from '../../../../contract/gateway';
import type { EndpointStatsWindow, ProviderEndpoint } from '../../../../contract/workbench-api';
import { classNames } from '../../../components/class-names';
import { ErrorPanel } from '../../../components/error-panel';
import { formatDateTime, formatPercent } from '../../../lib/format';
import { useModelEndpointStats, useModelEndpoints } from '../../catalog/api/model-endpoints';
import {
  ProviderList,
  ProviderStatusBadge,
  trafficSummary,
} from '../../catalog/components/providers-section';

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
        <ol aria-label={name} className="flex items-end gap-px">
          {buckets.map((bucket) => {
            const label = bucketLabel(bucket, window);
            return (
              <li key={bucket.start} title={label}>
                <span
                  aria-hidden="true"
                  className={classNames('block h-5 w-1.5 rounded-sm', barColour(bucket.uptime))}
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

/**
 * How the providers of `model` (the one the checks call) fared with real traffic of all keys:
 * breaker state, the last 30 minutes, and uptime bars over 24 hours and 7 days.
 */
export function AvailabilitySection({ model }: { model: string }) {
  const headingId = useId();
  const endpointsQuery = useModelEndpoints(model);
  const day = useModelEndpointStats(model, '24h');
  const week = useModelEndpointStats(model, '7d');
  const seriesOf = (provider: string) => ({
    '24h': day.data ? day.data.data.find((entry) => entry.provider === provider)?.buckets : null,
    '7d': week.data ? week.data.data.find((entry) => entry.provider === provider)?.buckets : null,
  });
  const statsError = day.error ?? week.error;

  return (
    <section
      aria-labelledby={headingId}
      className="flex flex-col gap-2 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800"
    >
      <h2 id={headingId} className="text-sm font-semibold">
        Provider availability of <span className="font-mono">{model}</span>
      </h2>
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        From real traffic of all keys, the model the inference checks call. The checks below probe
        each route now.
      </p>
      <ProviderList query={endpointsQuery} labelledBy={headingId}>
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
    </section>
  );
}
