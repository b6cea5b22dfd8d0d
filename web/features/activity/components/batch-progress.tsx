/** A batch's progress: a bar of its lines ended out of all, and the count, failures named. */
import type { BatchView } from '../../../../contract/workbench-api';

const countFormat = new Intl.NumberFormat('en-US');

export function BatchProgress({ batch }: { batch: BatchView }) {
  const ended = batch.completed + batch.failed;
  return (
    <>
      <progress
        aria-label={`Progress of batch ${batch.id}`}
        className="mr-2 h-2 w-24 align-middle"
        max={Math.max(1, batch.total)}
        value={ended}
      />
      {countFormat.format(ended)} of {countFormat.format(batch.total)}
      {batch.failed > 0 && ` (${countFormat.format(batch.failed)} failed)`}
    </>
  );
}
