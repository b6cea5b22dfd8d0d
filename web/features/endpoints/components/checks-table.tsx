import type { CheckResult } from '../../../../contract/workbench-api';
import { Badge } from '../../../components/badge';
import { Button } from '../../../components/button';
import { DataTable, type TableColumn } from '../../../components/data-table';
import { formatDuration } from '../../../lib/format';
import { authFormLabel, formatCheckCost, outcomeLabel, outcomeTones } from '../checks-report';

const columns: TableColumn[] = [
  { key: 'endpoint', header: 'Endpoint' },
  { key: 'outcome', header: 'Outcome' },
  { key: 'http', header: 'HTTP', align: 'right' },
  { key: 'latency', header: 'Latency', align: 'right' },
  { key: 'auth', header: 'Auth' },
  { key: 'cf-ray', header: 'cf-ray' },
  { key: 'explanation', header: 'Explanation' },
  { key: 'actions', header: <span className="sr-only">Actions</span>, align: 'right' },
];

/** One row per checked endpoint and auth form, with a re-run button each. */
export function ChecksTable({
  results,
  includePaid,
  runningIds,
  onRerun,
}: {
  results: CheckResult[];
  includePaid: boolean;
  /** Rows being re-run right now (all of them during a full run). */
  runningIds: Set<string>;
  onRerun(result: CheckResult): void;
}) {
  return (
    <DataTable columns={columns} label="Endpoint checks" className="w-full min-w-[60rem] text-sm">
      {results.map((result) => {
        const running = runningIds.has(result.id);
        const blockedByCost = result.paid && !includePaid;
        return (
          <tr key={result.id} className="border-t border-zinc-100 align-top dark:border-zinc-800">
            <th scope="row" className="px-2 py-1.5 text-left font-normal">
              <div className="flex flex-wrap items-center gap-1.5">
                <span className="font-medium">{result.entry}</span>
                {result.planned && <Badge tone="violet">Planned</Badge>}
                {result.paid && (
                  <Badge tone="amber">
                    {result.estimated_cost_usd > 0
                      ? `Paid · ${formatCheckCost(result.estimated_cost_usd)}`
                      : 'Inference · free model'}
                  </Badge>
                )}
              </div>
              <div className="font-mono text-xs text-zinc-600 dark:text-zinc-400">
                {result.method} {result.path}
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
            <td className="px-2 py-1.5 text-right tabular-nums">{result.status ?? '—'}</td>
            <td className="px-2 py-1.5 text-right tabular-nums whitespace-nowrap">
              {formatDuration(result.latency_ms)}
            </td>
            <td className="px-2 py-1.5 text-xs">{authFormLabel(result.auth_form)}</td>
            <td className="px-2 py-1.5 font-mono text-xs whitespace-nowrap select-all">
              {result.cf_ray ?? '—'}
            </td>
            <td className="max-w-md px-2 py-1.5 text-xs">
              {result.planned && (
                <span className="font-medium">Planned entry (no production contract). </span>
              )}
              {result.explanation}
            </td>
            <td className="px-2 py-1.5 text-right">
              <Button
                size="small"
                variant="ghost"
                disabled={running || blockedByCost}
                title={blockedByCost ? 'Tick “Include paid checks” to run this one' : undefined}
                aria-label={`Re-run ${result.entry} (${authFormLabel(result.auth_form)})`}
                onClick={() => onRerun(result)}
              >
                Re-run
              </Button>
            </td>
          </tr>
        );
      })}
    </DataTable>
  );
}
