/**
 * Under each reply: the trace id (the gateway's `cf-ray`, copyable), the provider that answered
 * (with the attempts it took when there were retries or fallbacks), time to first token, total
 * time, the gateway's own part of it, speed, tokens, cost and finish reason. Once the reply ends, the tokens and cost are the
 * ones the gateway charged (its generation record); estimates appear only while the reply
 * streams or when the record cannot be read, and say so.
 */
import { useEffect, useId } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { balanceQueryKey } from '../../../api/balance';
import { Link } from 'react-router';
import type { CatalogModel, GenerationCharge } from '../../../../contract/workbench-api';
import { Badge } from '../../../components/badge';
import { Button } from '../../../components/button';
import { CopyButton } from '../../../components/copy-button';
import { TranslationDetails } from '../../../components/translation-report';
import { formatDuration, formatUsd } from '../../../lib/format';
import { useNow } from '../../../lib/use-now';
// The Activity page's exact formatter: a charge reads the same digits on both pages.
import { formatNanosUsd, usdToNanos } from '../../../../contract/usd-nanos';
import { useGenerationCharge } from '../api/generation';
import {
  chargeLookup,
  computeRunMetrics,
  describeAttempts,
  formatTokensPerSecond,
  type RunMetrics,
} from '../metrics';
import type { RunRecord } from '../playground-types';

function Metric({
  label,
  children,
  title,
}: {
  label: string;
  children: React.ReactNode;
  title?: string;
}) {
  return (
    <div className="flex min-w-0 flex-col" title={title}>
      <dt className="text-[11px] tracking-wide text-zinc-500 uppercase dark:text-zinc-400">
        {label}
      </dt>
      <dd className="truncate font-mono text-xs">{children}</dd>
    </div>
  );
}

const costLabels: Record<RunMetrics['basis'], string> = {
  charged: 'Charged',
  reported: 'Cost (reported)',
  estimate: 'Cost (estimate)',
  refused: 'Cost',
  not_sent: 'Cost',
};

/** One line saying where the figures come from, so an estimate never passes for a bill. */
function ChargeNote({
  run,
  metrics,
  charge,
  lookupState,
  onCheckAgain,
}: {
  run: RunRecord;
  metrics: RunMetrics;
  charge: GenerationCharge | undefined;
  lookupState: 'none' | 'checking' | 'unavailable' | 'found';
  onCheckAgain(): void;
}) {
  const estimated = metrics.tokensEstimated || metrics.costEstimated;
  const reportedOrEstimated = estimated
    ? '≈ figures are estimates from the text and the catalog’s prices'
    : 'figures as the gateway reported them with the reply';
  let text: string;
  switch (metrics.basis) {
    case 'not_sent':
      text = 'The request never reached the gateway: nothing was charged.';
      break;
    case 'refused':
      text = 'The gateway refused the request before running it: nothing was charged.';
      break;
    case 'charged':
      text = [
        'Charged, from the gateway’s generation record',
        charge?.outcome === 'ended_early' ? 'ended early' : null,
        charge?.usage_estimated
          ? 'tokens counted by the gateway (the provider reported none)'
          : null,
        charge?.charge_capped ? 'capped at the amount reserved' : null,
      ]
        .filter(Boolean)
        .join(' · ');
      break;
    default:
      text =
        run.status === 'streaming'
          ? '≈ Estimates while the reply streams; the charge follows when it ends.'
          : lookupState === 'checking'
            ? `Reading the charge from the gateway… (until then, ${reportedOrEstimated}).`
            : lookupState === 'unavailable'
              ? `The gateway’s generation record is unavailable: ${reportedOrEstimated}.`
              : `No trace id came back, so the charge cannot be looked up: ${reportedOrEstimated}.`;
  }
  return (
    <p
      role="status"
      className="mt-1.5 flex flex-wrap items-center gap-x-2 text-xs text-zinc-600 dark:text-zinc-400"
    >
      <span>{text}</span>
      {lookupState === 'unavailable' && (
        <Button size="small" variant="ghost" className="h-6" onClick={onCheckAgain}>
          Check again
        </Button>
      )}
    </p>
  );
}

/** Once the reply's charge is recorded, the key's balance is asked again: what it has left moved. */
function useBalanceAfterCharge(profile: string | null, chargedId: string | null) {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (profile !== null && chargedId !== null) {
      void queryClient.invalidateQueries({ queryKey: balanceQueryKey(profile) });
    }
  }, [queryClient, profile, chargedId]);
}

export function ReplyMetrics({
  run,
  replyText,
  model,
}: {
  run: RunRecord;
  replyText: string;
  model: CatalogModel | undefined;
}) {
  const traceLabelId = useId();
  const providerLabelId = useId();
  const provider = run.meta?.provider ?? null;
  const attempts = describeAttempts(run.meta?.attempts);
  const streaming = run.status === 'streaming';
  const now = useNow(streaming ? 200 : null);
  const lookup = chargeLookup(run, replyText);
  const chargeQuery = useGenerationCharge(lookup);
  const charge = chargeQuery.data;
  useBalanceAfterCharge(lookup?.profile ?? null, charge?.id ?? null);
  const lookupState =
    lookup === null ? 'none' : charge ? 'found' : chargeQuery.isError ? 'unavailable' : 'checking';
  const metrics = computeRunMetrics(
    run,
    replyText,
    model,
    streaming ? Math.max(0, now - run.startedAt) : undefined,
    charge ?? null,
  );
  const approximate = metrics.tokensEstimated ? '≈' : '';
  const tokens = (value: number | null) =>
    value === null ? '—' : `${approximate}${value.toLocaleString('en-US')}`;
  const nothingCharged = metrics.basis === 'refused' || metrics.basis === 'not_sent';

  return (
    <div className="@container mt-2 border-t border-zinc-200 pt-2 dark:border-zinc-800">
      <div className="mb-1.5 flex flex-wrap items-center gap-x-4 gap-y-1 text-xs">
        <span className="inline-flex flex-wrap items-center gap-x-2">
          <span id={traceLabelId} className="font-medium text-zinc-600 dark:text-zinc-400">
            Trace ID
          </span>
          {run.cfRay ? (
            <>
              <Link
                to={`/activity?id=${encodeURIComponent(run.cfRay)}`}
                aria-label={`${run.cfRay}: open in Activity`}
                className="text-sky-700 underline decoration-dotted underline-offset-2 hover:decoration-solid dark:text-sky-400"
              >
                <code aria-labelledby={traceLabelId} className="font-mono select-all">
                  {run.cfRay}
                </code>
              </Link>
              <CopyButton text={run.cfRay} label="Copy cf-ray" variant="ghost" className="h-6" />
            </>
          ) : (
            <span aria-labelledby={traceLabelId} className="text-zinc-500">
              {streaming ? 'waiting…' : 'none (no gateway answer)'}
            </span>
          )}
        </span>
        {provider && (
          <span className="inline-flex flex-wrap items-center gap-x-2 gap-y-1">
            <span id={providerLabelId} className="font-medium text-zinc-600 dark:text-zinc-400">
              Provider
            </span>
            <code aria-labelledby={providerLabelId} className="font-mono">
              {provider}
            </code>
            {attempts && (
              <span title="The gateway tried more than once before this answer started: a provider failed or was cooling down, so it retried or fell back to the next one.">
                <Badge tone="amber">{attempts}</Badge>
              </span>
            )}
          </span>
        )}
      </div>
      <dl className="grid grid-cols-2 gap-x-4 gap-y-1.5 @sm:grid-cols-3 @xl:grid-cols-4 @4xl:grid-cols-8">
        <Metric label="First token" title="Time to first token, from sending">
          {run.streamed ? formatDuration(metrics.firstTokenMs) : 'not streamed'}
        </Metric>
        <Metric label="Total">{formatDuration(metrics.totalMs)}</Metric>
        <Metric
          label="Gateway overhead"
          title="The time the gateway itself added: its total time minus the time it waited on the provider (from its generation record)"
        >
          {charge?.overhead_ms == null ? '—' : `${charge.overhead_ms.toFixed(2)} ms`}
        </Metric>
        <Metric
          label="Speed"
          title={
            metrics.speedEstimated
              ? 'Tokens per second after the first token, estimated from the text received'
              : 'Completion tokens per second after the first token'
          }
        >
          {metrics.speedEstimated ? '≈' : ''}
          {formatTokensPerSecond(metrics.tokensPerSecond)}
        </Metric>
        <Metric label="Prompt tokens">{nothingCharged ? '0' : tokens(metrics.promptTokens)}</Metric>
        <Metric label="Completion tokens">
          {nothingCharged ? '0' : tokens(metrics.completionTokens)}
        </Metric>
        <Metric label={costLabels[metrics.basis]}>
          {metrics.basis === 'refused'
            ? `${formatUsd(0)} · refused`
            : metrics.basis === 'not_sent'
              ? `${formatUsd(0)} · not sent`
              : metrics.costUsd === null
                ? '—'
                : metrics.basis === 'charged'
                  ? // What the key was charged, every digit: "$0.0000307", never rounded.
                    formatNanosUsd(usdToNanos(metrics.costUsd))
                  : `${metrics.costEstimated ? '≈' : ''}${formatUsd(metrics.costUsd)}`}
        </Metric>
        <Metric label="Finish reason">
          {metrics.finishReason ?? (run.status === 'stopped' ? 'stopped' : '—')}
        </Metric>
      </dl>
      <TranslationDetails report={run.meta?.translation} />
      <ChargeNote
        run={run}
        metrics={metrics}
        charge={charge}
        lookupState={lookupState}
        onCheckAgain={() => void chargeQuery.refetch()}
      />
    </div>
  );
}
