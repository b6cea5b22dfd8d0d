import { Fragment, useId, type ReactNode } from 'react';
import type {
  CatalogModel,
  ProviderEndpoint,
  ProviderStatus,
} from '../../../../contract/workbench-api';
import { Badge, type BadgeTone } from '../../../components/badge';
import { ErrorPanel } from '../../../components/error-panel';
import { LoadingState } from '../../../components/states';
import {
  formatContextLength,
  formatDuration,
  formatPercent,
  formatPricePerMillion,
  formatTime,
} from '../../../lib/format';
import { useNow } from '../../../lib/use-now';
import { useModelEndpoints } from '../api/model-endpoints';

const statusTones: Record<ProviderStatus, BadgeTone> = {
  healthy: 'green',
  cooling_down: 'amber',
  unknown: 'neutral',
};

/**
 * The words of a provider's status badge. A cooling-down provider says when it is tried again,
 * counted from when the list arrived (`fetchedAt`, the browser's clock).
 */
export function statusLabel(endpoint: ProviderEndpoint, fetchedAt: number, now: number): string {
  switch (endpoint.status) {
    case 'healthy':
      return 'Healthy';
    case 'cooling_down': {
      if (endpoint.retry_after === null) return 'Cooling down';
      const left = Math.ceil((fetchedAt + endpoint.retry_after * 1000 - now) / 1000);
      return left > 0 ? `Cooling down · retry in ${left} s` : 'Cooling down · retry due';
    }
    default:
      return 'Status unknown';
  }
}

/**
 * A provider's last 30 minutes of real traffic in one line. Without traffic it says so rather
 * than showing 0%, which would read as a provider that fails every request.
 */
export function trafficSummary(endpoint: ProviderEndpoint): string {
  if (endpoint.uptime_last_30m === null) return 'No traffic in the last 30 minutes';
  return `${formatPercent(endpoint.uptime_last_30m)} uptime · latency p50 ${formatDuration(endpoint.latency_ms_p50)} · time to first token p50 ${formatDuration(endpoint.ttft_ms_p50)}`;
}

/** The provider's breaker state as a badge, with its countdown while it cools down. */
export function ProviderStatusBadge({
  endpoint,
  fetchedAt,
  now,
  className,
}: {
  endpoint: ProviderEndpoint;
  fetchedAt: number;
  now: number;
  className?: string;
}) {
  return (
    <Badge tone={statusTones[endpoint.status]} className={className}>
      <span aria-hidden="true">●</span>
      {statusLabel(endpoint, fetchedAt, now)}
    </Badge>
  );
}

/** True when the provider's price is not the catalog's (the catalog shows one price per model). */
function differsFromCatalog(providerPrice: string | null, catalogPrice: string | null): boolean {
  if (providerPrice === null || catalogPrice === null) return false;
  return Number(providerPrice) !== Number(catalogPrice);
}

function ProviderItem({
  endpoint,
  model,
  fetchedAt,
  now,
}: {
  endpoint: ProviderEndpoint;
  model: CatalogModel;
  fetchedAt: number;
  now: number;
}) {
  const priceDiffers =
    differsFromCatalog(endpoint.prompt_price, model.prompt_price) ||
    differsFromCatalog(endpoint.completion_price, model.completion_price);
  return (
    <li className="rounded-md border border-zinc-200 p-2.5 dark:border-zinc-800">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <span
          aria-hidden="true"
          className="inline-flex size-5 items-center justify-center rounded-full bg-zinc-100 text-xs font-medium tabular-nums text-zinc-700 dark:bg-zinc-800 dark:text-zinc-200"
        >
          {endpoint.order}
        </span>
        <span className="font-mono text-sm font-medium break-all">{endpoint.provider}</span>
        {/* The kind says something only when the provider's name does not ("simulated simulated"). */}
        {endpoint.kind && endpoint.kind !== endpoint.provider && (
          <span className="text-xs text-zinc-600 dark:text-zinc-400">{endpoint.kind}</span>
        )}
        <ProviderStatusBadge
          endpoint={endpoint}
          fetchedAt={fetchedAt}
          now={now}
          className="ml-auto"
        />
      </div>
      <dl className="mt-2 grid grid-cols-[max-content_minmax(0,1fr)] gap-x-3 gap-y-0.5 text-xs">
        <dt className="text-zinc-600 dark:text-zinc-400">Upstream model</dt>
        <dd className="font-mono break-all">{endpoint.upstream_model ?? '—'}</dd>
        <dt className="text-zinc-600 dark:text-zinc-400">Price per M</dt>
        <dd>
          {formatPricePerMillion(endpoint.prompt_price)} prompt ·{' '}
          {formatPricePerMillion(endpoint.completion_price)} completion
          {priceDiffers && (
            <span className="text-amber-800 dark:text-amber-300"> (not the catalog price)</span>
          )}
        </dd>
        <dt className="text-zinc-600 dark:text-zinc-400">Context</dt>
        <dd>
          {formatContextLength(endpoint.context_length)}
          {endpoint.max_completion_tokens !== null &&
            ` · up to ${endpoint.max_completion_tokens.toLocaleString('en-US')} output tokens`}
        </dd>
        <dt className="text-zinc-600 dark:text-zinc-400">Last 30 min</dt>
        <dd>{trafficSummary(endpoint)}</dd>
      </dl>
    </li>
  );
}

/** When the list was fetched and the time now, for each provider's countdown. */
export type ProviderClock = { fetchedAt: number; now: number };

/**
 * A model's providers as the endpoints query has them: loading, failed, none, or one list item
 * each, in the order the gateway tries them. The catalog panel and the Endpoints page share it.
 */
export function ProviderList({
  query,
  labelledBy,
  children,
}: {
  query: ReturnType<typeof useModelEndpoints>;
  labelledBy: string;
  children: (endpoint: ProviderEndpoint, clock: ProviderClock) => ReactNode;
}) {
  const endpoints = query.data?.endpoints ?? [];
  const coolingDown = endpoints.some((endpoint) => endpoint.status === 'cooling_down');
  // Ticks only while a countdown is on screen.
  const now = useNow(coolingDown ? 1000 : null);
  if (query.isPending) return <LoadingState>Loading the providers…</LoadingState>;
  if (query.isError)
    return (
      <ErrorPanel
        what="Loading the providers"
        error={query.error}
        onRetry={() => void query.refetch()}
      />
    );
  if (endpoints.length === 0)
    return <p className="text-sm">The gateway lists no provider for this model.</p>;
  const clock = { fetchedAt: query.dataUpdatedAt, now: Math.max(now, query.dataUpdatedAt) };
  return (
    <ol aria-labelledby={labelledBy} className="flex flex-col gap-2">
      {endpoints.map((endpoint) => (
        <Fragment key={`${endpoint.order}-${endpoint.provider}`}>
          {children(endpoint, clock)}
        </Fragment>
      ))}
    </ol>
  );
}

/**
 * The providers serving a model, in the order the gateway tries them, each with its upstream
 * model, its own prices and its status. Fetched when the detail panel opens.
 */
export function ProvidersSection({ model }: { model: CatalogModel }) {
  const headingId = useId();
  const endpointsQuery = useModelEndpoints(model.id);
  const skipped = endpointsQuery.data?.skipped ?? 0;

  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-2">
      <div className="flex flex-wrap items-baseline justify-between gap-x-2">
        <h3 id={headingId} className="text-sm font-semibold">
          Providers
          {endpointsQuery.data && (
            <>
              {' '}
              <span className="font-normal text-zinc-600 dark:text-zinc-400">
                ({endpointsQuery.data.endpoints.length})
              </span>
            </>
          )}
        </h3>
        {endpointsQuery.data && (
          <span className="text-xs text-zinc-600 dark:text-zinc-400">
            status as of {formatTime(endpointsQuery.dataUpdatedAt)}
          </span>
        )}
      </div>
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        Tried in this order: the next takes over when one fails before answering. A reply is billed
        at the prices of the provider that answered it.
      </p>
      <ProviderList query={endpointsQuery} labelledBy={headingId}>
        {(endpoint, clock) => <ProviderItem endpoint={endpoint} model={model} {...clock} />}
      </ProviderList>
      {skipped > 0 && (
        <p className="text-xs text-amber-800 dark:text-amber-300">
          {skipped} provider {skipped === 1 ? 'entry was' : 'entries were'} left out because{' '}
          {skipped === 1 ? 'it has' : 'they have'} no provider id.
        </p>
      )}
    </section>
  );
}
