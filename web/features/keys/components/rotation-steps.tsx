import type { RotationEstimate } from '../../../../contract/workbench-api';
import type { BadgeTone } from '../../../components/badge';
import { Badge } from '../../../components/badge';
import { classNames } from '../../../components/class-names';
import { formatUsd } from '../../../lib/format';
import { rotationSteps, type StepProgress, type StepStatus } from '../rotation-progress';

const statusWords: Record<StepStatus, string> = {
  waiting: 'Waiting',
  running: 'Running…',
  done: 'Done',
  failed: 'Failed',
  not_run: 'Not run',
};

const statusTones: Record<StepStatus, BadgeTone> = {
  waiting: 'neutral',
  running: 'sky',
  done: 'green',
  failed: 'red',
  not_run: 'neutral',
};

const statusSymbols: Record<StepStatus, string> = {
  waiting: '○',
  running: '◔',
  done: '✓',
  failed: '✕',
  not_run: '–',
};

/**
 * The rotation's four steps with each one's status and what happened, as the stream reports
 * them. Step 3 shows its estimated cost until it runs; afterwards its detail says what it cost.
 */
export function RotationSteps({
  steps,
  estimate,
}: {
  steps: StepProgress[];
  /** Step 3's estimated cost; null while it is not known. */
  estimate: RotationEstimate | null;
}) {
  return (
    <ol aria-label="Rotation steps" className="flex flex-col gap-2">
      {rotationSteps.map(({ step, title }, index) => {
        const progress = steps[index];
        const status = progress?.status ?? 'waiting';
        return (
          <li
            key={step}
            aria-current={status === 'running' ? 'step' : undefined}
            className={classNames(
              'flex gap-3 rounded-md border p-2 text-sm',
              status === 'failed'
                ? 'border-red-300 bg-red-50 dark:border-red-800 dark:bg-red-950/40'
                : status === 'running'
                  ? 'border-sky-300 dark:border-sky-700'
                  : 'border-zinc-200 dark:border-zinc-800',
            )}
          >
            <span
              aria-hidden="true"
              className="flex size-6 shrink-0 items-center justify-center rounded-full bg-zinc-100 text-xs font-semibold dark:bg-zinc-800"
            >
              {step}
            </span>
            <div className="flex min-w-0 flex-1 flex-col gap-0.5">
              <p className="flex flex-wrap items-center justify-between gap-2">
                <span className="font-medium">
                  <span className="sr-only">Step {step}: </span>
                  {title}
                </span>
                <Badge tone={statusTones[status]}>
                  <span aria-hidden="true">{statusSymbols[status]}</span>
                  <span>{statusWords[status]}</span>
                </Badge>
              </p>
              {progress?.detail && (
                <p className="break-words text-zinc-700 dark:text-zinc-300">{progress.detail}</p>
              )}
              {step === 3 && status === 'waiting' && estimate && (
                <p className="text-zinc-700 dark:text-zinc-300">
                  Estimated cost:{' '}
                  <strong className="tabular-nums">{formatUsd(estimate.estimated_cost_usd)}</strong>{' '}
                  for at most {estimate.max_tokens} token{estimate.max_tokens === 1 ? '' : 's'} from{' '}
                  <span className="font-mono text-xs">{estimate.model}</span>.
                </p>
              )}
            </div>
          </li>
        );
      })}
    </ol>
  );
}
