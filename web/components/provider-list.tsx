/**
 * A model's providers as a list with their status badges: shared by the catalog's model detail
 * and the Endpoints page's availability rows.
 */
import { Fragment, type ReactNode } from 'react';
import type { ProviderEndpoint, ProviderStatus } from '../../contract/workbench-api';
import { Badge, type BadgeTone } from './badge';
import { ErrorPanel } from './error-panel';
import { LoadingState } from './states';
import { formatDuration, formatPercent } from '../lib/format';
import { useNow } from '../lib/use-now';
import type { useModelEndpoints } from '../api/model-endpoints';

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
