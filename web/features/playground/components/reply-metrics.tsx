/**
 * Under each reply: the trace id (the gateway's `cf-ray`, copyable), the provider that answered
 * (with the attempts it took when there were retries or fallbacks), time to first token, total
 * time, speed, tokens, cost and finish reason. Estimates say they are estimates.
 */
import { useId } from 'react';
import type { CatalogModel } from '../../../../contract/workbench-api';
import { Badge } from '../../../components/badge';
import { CopyButton } from '../../../components/copy-button';
import { formatDuration, formatUsd } from '../../../lib/format';
import { useNow } from '../../../lib/use-now';
import { computeRunMetrics, describeAttempts, formatTokensPerSecond } from '../metrics';
import type { RunRecord } from '../playground-types';

function Metric({ label, children, title }: { label: string; children: React.ReactNode; title?: string }) {
  return (
    <div className="flex min-w-0 flex-col" title={title}>
      <dt className="text-[11px] tracking-wide text-zinc-500 uppercase dark:text-zinc-400">{label}</dt>
      <dd className="truncate font-mono text-xs">{children}</dd>
    </div>
  );
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
  const metrics = computeRunMetrics(run, replyText, model, streaming ? Math.max(0, now - run.startedAt) : undefined);
  const tokens = (value: number | null) =>
    value === null ? '—' : `${metrics.tokensEstimated ? '≈' : ''}${value.toLocaleString('en-US')}`;

  return (
    <div className="@container mt-2 border-t border-zinc-200 pt-2 dark:border-zinc-800">
      <div className="mb-1.5 flex flex-wrap items-center gap-x-4 gap-y-1 text-xs">
        <span className="inline-flex flex-wrap items-center gap-x-2">
          <span id={traceLabelId} className="font-medium text-zinc-600 dark:text-zinc-400">
            Trace ID
          </span>
          {run.cfRay ? (
            <>
              <code aria-labelledby={traceLabelId} className="font-mono select-all">
                {run.cfRay}
              </code>
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
      <dl className="grid grid-cols-2 gap-x-4 gap-y-1.5 @sm:grid-cols-3 @xl:grid-cols-4 @4xl:grid-cols-7">
        <Metric label="First token" title="Time to first token, from sending">
          {run.streamed ? formatDuration(metrics.firstTokenMs) : 'not streamed'}
        </Metric>
        <Metric label="Total">{formatDuration(metrics.totalMs)}</Metric>
        <Metric label="Speed" title="Completion tokens per second after the first token">
          {formatTokensPerSecond(metrics.tokensPerSecond)}
        </Metric>
        <Metric label="Prompt tokens" title={metrics.tokensEstimated ? 'No usage reported' : undefined}>
          {tokens(metrics.promptTokens)}
        </Metric>
        <Metric
          label="Completion tokens"
          title={metrics.tokensEstimated ? 'Estimated from the text: no usage was reported' : undefined}
        >
          {tokens(metrics.completionTokens)}
        </Metric>
        <Metric
          label={metrics.costEstimated ? 'Cost (estimate)' : 'Cost'}
          title={
            metrics.refused
              ? 'The gateway refused the request before running it: nothing was charged'
              : metrics.costEstimated
                ? 'Estimated from the catalog prices: the gateway reported no cost'
                : 'As reported by the gateway (usage.cost)'
          }
        >
          {metrics.refused
            ? `${formatUsd(0)} · refused`
            : metrics.costUsd === null
              ? '—'
              : `${metrics.costEstimated ? '≈' : ''}${formatUsd(metrics.costUsd)}`}
        </Metric>
        <Metric label="Finish reason">{metrics.finishReason ?? (run.status === 'stopped' ? 'stopped' : '—')}</Metric>
      </dl>
    </div>
  );
}
