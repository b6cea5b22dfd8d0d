import { useQuery } from '@tanstack/react-query';
import { Dialog } from 'radix-ui';
import { useId, useMemo, useState } from 'react';
import type { CatalogModel } from '../../../../contract/workbench-api';
import { useCatalog } from '../../../api/catalog';
import { Badge } from '../../../components/badge';
import { Button } from '../../../components/button';
import { DialogFooter } from '../../../components/dialog-footer';
import { ErrorPanel } from '../../../components/error-panel';
import { LoadingState } from '../../../components/states';
import { compareDecimal } from '../../../../contract/decimal';
import { formatDuration, formatUsd, pricePerMillion } from '../../../lib/format';
import { useValidateKey, validationEstimateQueryOptions } from '../api/validate-key';
import { keyStateLabels } from '../key-state';

/** The cheapest text model: the natural choice for a one-token key check. */
export function cheapestTextModel(models: CatalogModel[]): CatalogModel | null {
  let best: CatalogModel | null = null;
  for (const model of models) {
    if (model.output_modalities.length > 0 && !model.output_modalities.includes('text')) continue;
    const price = pricePerMillion(model.completion_price);
    if (!price || price.digits < 0n) continue;
    const bestPrice = best ? pricePerMillion(best.completion_price) : null;
    if (!best || !bestPrice || compareDecimal(price, bestPrice) < 0) best = model;
  }
  return best ?? models[0] ?? null;
}

/**
 * `Validate key`: one minimal inference call, the only sure test that a key may spend. It costs
 * money, so the dialog shows the estimated cost first and runs only on confirmation.
 */
export function ValidateKeyDialog({ profile }: { profile: string }) {
  const [open, setOpen] = useState(false);
  const catalog = useCatalog();
  const defaultModel = useMemo(
    () => cheapestTextModel(catalog.data?.models ?? [])?.id ?? '',
    [catalog.data],
  );
  const [chosenModel, setChosenModel] = useState<string | null>(null);
  const model = chosenModel ?? defaultModel;
  const maxTokens = 1;
  const modelInputId = useId();
  const modelListId = useId();
  const estimate = useQuery({
    ...validationEstimateQueryOptions(profile, model, maxTokens),
    enabled: open && model !== '',
  });
  const validation = useValidateKey();
  const result = validation.data;

  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) validation.reset();
      }}
    >
      <Dialog.Trigger asChild>
        <Button>Validate key</Button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-zinc-950/40" />
        <Dialog.Content className="fixed top-1/2 left-1/2 z-50 flex max-h-[90dvh] w-[min(32rem,calc(100vw-1rem))] -translate-x-1/2 -translate-y-1/2 flex-col gap-3 overflow-y-auto rounded-lg border border-zinc-200 bg-white p-4 shadow-xl dark:border-zinc-800 dark:bg-zinc-950">
          <Dialog.Title className="text-lg font-semibold">Validate key “{profile}”</Dialog.Title>
          <Dialog.Description className="text-sm text-zinc-700 dark:text-zinc-300">
            Sends one chat completion with max_tokens {maxTokens} through this key. It is a real,
            billed request.
          </Dialog.Description>
          <div className="flex flex-col gap-1 text-sm">
            <label htmlFor={modelInputId} className="font-medium">
              Model for the check
            </label>
            <input
              id={modelInputId}
              list={modelListId}
              value={model}
              onChange={(event) => {
                setChosenModel(event.target.value);
                validation.reset();
              }}
              className="h-8 rounded-md border border-zinc-300 bg-white px-2 font-mono text-xs dark:border-zinc-700 dark:bg-zinc-900"
            />
            <datalist id={modelListId}>
              {catalog.data?.models.map((candidate) => (
                <option key={candidate.id} value={candidate.id} />
              ))}
            </datalist>
          </div>
          {model === '' ? (
            <p className="text-sm">Choose a model to see the estimated cost.</p>
          ) : estimate.isPending ? (
            <LoadingState>Estimating the cost…</LoadingState>
          ) : estimate.isError ? (
            <ErrorPanel
              what="Estimating the cost"
              error={estimate.error}
              onRetry={() => void estimate.refetch()}
            />
          ) : (
            <p className="rounded-md bg-zinc-50 p-3 text-sm dark:bg-zinc-900">
              Estimated cost:{' '}
              <strong className="tabular-nums">
                {formatUsd(estimate.data.estimated_cost_usd)}
              </strong>{' '}
              for at most {estimate.data.max_tokens} token
              {estimate.data.max_tokens === 1 ? '' : 's'} from{' '}
              <span className="font-mono text-xs">{estimate.data.model}</span>.
            </p>
          )}
          {validation.isError && <ErrorPanel what="Validating the key" error={validation.error} />}
          {result && (
            <div
              role="status"
              className="flex flex-col gap-1 rounded-md border border-zinc-200 p-3 text-sm dark:border-zinc-800"
            >
              <p className="flex flex-wrap items-center gap-2 font-medium">
                <Badge tone={result.valid ? 'green' : 'red'}>
                  {result.valid ? 'Valid' : 'Not valid'}
                </Badge>
                {result.state && <span>state: {keyStateLabels[result.state]}</span>}
              </p>
              <p>{result.message}</p>
              <dl className="grid grid-cols-[max-content_1fr] gap-x-3 text-xs">
                <dt className="text-zinc-600 dark:text-zinc-400">HTTP status</dt>
                <dd>{result.meta.upstream_status}</dd>
                <dt className="text-zinc-600 dark:text-zinc-400">Cost</dt>
                <dd>
                  {result.cost_usd === null && result.meta.upstream_status >= 400 ? (
                    // The gateway charges nothing for a request it refuses (as the playground
                    // says).
                    `${formatUsd(0)} · refused`
                  ) : (
                    <>
                      {result.cost_usd === null ? 'not reported yet' : formatUsd(result.cost_usd)}{' '}
                      (estimated {formatUsd(result.estimated_cost_usd)})
                    </>
                  )}
                </dd>
                <dt className="text-zinc-600 dark:text-zinc-400">Time</dt>
                <dd>{formatDuration(result.meta.total_ms ?? result.meta.ttfb_ms)}</dd>
                {result.meta.cf_ray && (
                  <>
                    <dt className="text-zinc-600 dark:text-zinc-400">cf-ray</dt>
                    <dd className="font-mono select-all">{result.meta.cf_ray}</dd>
                  </>
                )}
              </dl>
            </div>
          )}
          <DialogFooter>
            <Dialog.Close asChild>
              <Button variant="ghost">{result ? 'Close' : 'Cancel'}</Button>
            </Dialog.Close>
            <Button
              variant="primary"
              disabled={!estimate.data || validation.isPending}
              onClick={() => validation.mutate({ profile, model, maxTokens })}
            >
              {validation.isPending
                ? 'Validating…'
                : estimate.data
                  ? `${result ? 'Run again' : 'Run check'} (≈ ${formatUsd(estimate.data.estimated_cost_usd)})`
                  : 'Run check'}
            </Button>
          </DialogFooter>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
