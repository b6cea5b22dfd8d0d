/** The range's totals: spend (exact), requests and tokens, from the same summary as the charts. */
import { describeRange } from '../activity-filters';
import { formatNanosUsd } from '../../../../contract/usd-nanos';
import type { ActivitySummary } from '../activity-summary';

const countFormat = new Intl.NumberFormat('en-US');

export function ActivityTotals({
  summary,
  model,
}: {
  summary: ActivitySummary;
  model: string | null;
}) {
  const { totals } = summary;
  const figures = [
    { label: 'Spend', value: formatNanosUsd(totals.costNanos), mono: true },
    { label: 'Requests', value: countFormat.format(totals.requests) },
    { label: 'Prompt tokens', value: countFormat.format(totals.promptTokens) },
    { label: 'Completion tokens', value: countFormat.format(totals.completionTokens) },
  ];
  return (
    <section aria-labelledby="activity-totals-heading" className="flex flex-col gap-2">
      <h2 id="activity-totals-heading" className="text-sm font-semibold">
        Totals for {describeRange(summary)}
        {model && (
          <>
            {' '}
            · <span className="font-mono font-normal">{model}</span>
          </>
        )}
      </h2>
      <dl className="grid grid-cols-2 gap-2 sm:grid-cols-4">
        {figures.map((figure) => (
          <div
            key={figure.label}
            className="rounded-lg border border-zinc-200 px-3 py-2 dark:border-zinc-800"
          >
            <dt className="text-xs text-zinc-600 dark:text-zinc-400">{figure.label}</dt>
            <dd
              className={
                figure.mono
                  ? 'font-mono text-lg font-semibold'
                  : 'text-lg font-semibold tabular-nums'
              }
            >
              {figure.value}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
