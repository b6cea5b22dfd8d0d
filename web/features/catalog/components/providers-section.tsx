import { useId } from 'react';
import type { CatalogModel, ProviderEndpoint } from '../../../../contract/workbench-api';
import {
  ProviderList,
  ProviderStatusBadge,
  trafficSummary,
} from '../../../components/provider-list';
import { formatContextLength, formatPricePerMillion, formatTime } from '../../../lib/format';
import { useModelEndpoints } from '../../../api/model-endpoints';

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
