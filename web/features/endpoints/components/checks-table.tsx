import type { CheckResult } from '../../../../contract/workbench-api';
import { Badge } from '../../../components/badge';
import { Button } from '../../../components/button';
import { classNames } from '../../../components/class-names';
import { DataTable, columnVisibility, type TableColumn } from '../../../components/data-table';
import { formatDuration } from '../../../lib/format';
import { authFormLabel, formatCheckCost, outcomeLabel, outcomeTones } from '../checks-report';

// On a phone the endpoint, its outcome and its run button stay; the rest fold into the
// endpoint's cell. Every column whose cells change during a run ("running…", "—" to a cf-ray,
// Run to Re-run) has a width that fits its longest value, so the table does not jump when the
// results arrive; the endpoint and the explanation share what is left.
const columns = [
  { key: 'endpoint', header: 'Endpoint' },
  { key: 'outcome', header: 'Outcome', width: 'w-36' },
  { key: 'http', header: 'HTTP', align: 'right', hideBelow: 'md', width: 'w-16' },
  { key: 'latency', header: 'Latency', align: 'right', hideBelow: 'md', width: 'w-20' },
  { key: 'auth', header: 'Auth', hideBelow: 'lg', width: 'w-36' },
  { key: 'cf-ray', header: 'cf-ray', hideBelow: 'lg', width: 'w-44' },
  { key: 'explanation', header: 'Explanation', hideBelow: 'md' },
  {
    key: 'actions',
    header: <span className="sr-only">Actions</span>,
    align: 'right',
    width: 'w-20',
  },
] satisfies TableColumn[];

const hidden = (key: string) =>
  columnVisibility(columns.find((column) => column.key === key)?.hideBelow);

/** One row per checked endpoint and auth form, with a button to run (or re-run) it alone. */
export function ChecksTable({
  results,
  explanations,
  includePaid,
  runningIds,
  onRerun,
}: {
  results: CheckResult[];
  /** Each row's explanation as shown (identical ones grouped); the row's own when absent. */
  explanations?: Map<string, string>;
  includePaid: boolean;
  /** Rows being re-run right now (all of them during a full run). */
  runningIds: Set<string>;
  onRerun(result: CheckResult): void;
}) {
  return (
    <DataTable
      columns={columns}
      label="Endpoint checks"
      // Fixed layout from `md` up: the columns' widths, not their cells, set the table's shape.
      // A phone keeps the automatic layout, its three columns sized by their content.
      className="w-full text-sm md:table-fixed lg:min-w-[60rem]"
    >
      {results.map((result) => {
        const running = runningIds.has(result.id);
        const blockedByCost = result.paid && !includePaid;
        const ran = result.ran_at !== null || result.status !== null;
        const verb = ran ? 'Re-run' : 'Run';
        const explanation = explanations?.get(result.id) ?? result.explanation;
        return (
          <tr key={result.id} className="border-t border-zinc-100 align-top dark:border-zinc-800">
            <th scope="row" className="px-2 py-1.5 text-left font-normal">
              <div className="flex flex-wrap items-center gap-1.5">
                <span className="font-medium">{result.entry}</span>
                {result.planned && (
                  <Badge tone="violet">
                    <span title="Not served by this gateway yet, with no promise it will work in production">
                      Planned
                    </span>
                  </Badge>
                )}
                {result.paid ? (
                  <Badge tone="amber">
                    {result.estimated_cost_usd > 0
                      ? `Paid · ${formatCheckCost(result.estimated_cost_usd)}`
                      : 'Paid · cost unknown'}
                  </Badge>
                ) : result.inference ? (
                  <Badge>Inference · free model</Badge>
                ) : null}
              </div>
              <div className="font-mono text-xs break-all text-zinc-600 dark:text-zinc-400">
                {result.method} {result.path}
              </div>
              {/* What the hidden columns say, on a phone. */}
              <div className="mt-1 flex flex-col gap-0.5 text-xs text-zinc-700 md:hidden dark:text-zinc-300">
                <span className="text-zinc-600 dark:text-zinc-400">
                  {[
                    result.status === null ? null : `HTTP ${result.status}`,
                    result.latency_ms === null ? null : formatDuration(result.latency_ms),
                    authFormLabel(result.auth_form),
                  ]
                    .filter(Boolean)
                    .join(' · ')}
                </span>
                <span>{explanation}</span>
              </div>
            </th>
            <td className="px-2 py-1.5">
              {running ? (
                <Badge>running…</Badge>
              ) : (
                <Badge tone={outcomeTones[result.outcome]}>
                  <span aria-hidden="true">●</span>
                  <span>{outcomeLabel(result)}</span>
                </Badge>
              )}
            </td>
            <td className={classNames('px-2 py-1.5 text-right tabular-nums', hidden('http'))}>
              {result.status ?? '—'}
            </td>
            <td
              className={classNames(
                'px-2 py-1.5 text-right tabular-nums whitespace-nowrap',
                hidden('latency'),
              )}
            >
              {formatDuration(result.latency_ms)}
            </td>
            <td className={classNames('px-2 py-1.5 text-xs', hidden('auth'))}>
              {authFormLabel(result.auth_form)}
            </td>
            <td
              className={classNames(
                'px-2 py-1.5 font-mono text-xs whitespace-nowrap select-all',
                hidden('cf-ray'),
              )}
            >
              {result.cf_ray ?? '—'}
            </td>
            <td className={classNames('max-w-md px-2 py-1.5 text-xs', hidden('explanation'))}>
              {explanation}
            </td>
            <td className="px-2 py-1.5 text-right">
              <Button
                size="small"
                variant="ghost"
                disabled={running || blockedByCost}
                title={blockedByCost ? 'Tick “Include paid checks” to run this one' : undefined}
                aria-label={`${verb} ${result.entry} (${authFormLabel(result.auth_form)})`}
                onClick={() => onRerun(result)}
              >
                {verb}
              </Button>
            </td>
          </tr>
        );
      })}
    </DataTable>
  );
}
