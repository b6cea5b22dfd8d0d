/**
 * The key's latest batches (docs/batches.md): each one's endpoint, status, progress (a bar of its
 * lines ended out of all) and the cost of the lines that ran so far.
 */
import type { BatchView } from '../../../../contract/workbench-api';
import { formatDateTime, formatUsd } from '../../../lib/format';
import { BatchProgress } from './batch-progress';

export function BatchesTable({ batches }: { batches: BatchView[] }) {
  return (
    <section aria-labelledby="batches-heading" className="flex flex-col gap-2">
      <h2 id="batches-heading" className="text-sm font-semibold">
        Batches
      </h2>
      <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
        <table aria-labelledby="batches-heading" className="w-full text-left text-xs">
          <thead className="text-zinc-600 dark:text-zinc-400">
            <tr>
              <th className="px-3 py-1.5 font-medium">Batch</th>
              <th className="px-3 py-1.5 font-medium">Created</th>
              <th className="px-3 py-1.5 font-medium">Endpoint</th>
              <th className="px-3 py-1.5 font-medium">Status</th>
              <th className="px-3 py-1.5 font-medium">Progress</th>
              <th className="px-3 py-1.5 text-right font-medium">Cost so far</th>
            </tr>
          </thead>
          <tbody>
            {batches.map((batch) => (
              <tr key={batch.id} className="border-t border-zinc-200 dark:border-zinc-800">
                <td className="px-3 py-1.5 font-mono">{batch.id}</td>
                <td className="px-3 py-1.5">{formatDateTime(batch.created_at, 'seconds')}</td>
                <td className="px-3 py-1.5 font-mono">{batch.endpoint}</td>
                <td className="px-3 py-1.5">{batch.status.replace('_', ' ')}</td>
                <td className="px-3 py-1.5">
                  <BatchProgress batch={batch} />
                </td>
                <td className="px-3 py-1.5 text-right">{formatUsd(batch.cost_usd)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
