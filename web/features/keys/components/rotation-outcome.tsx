import { ErrorPanel } from '../../../components/error-panel';
import { rotationSteps, type RotationProgress } from '../rotation-progress';

/**
 * How the rotation ended, in plain words: done, or the step that failed, the state the keys are
 * in and what to do. Shown once the stream says so (or breaks off).
 */
export function RotationOutcome({ progress }: { progress: RotationProgress }) {
  const { outcome, error, interrupted, unreadable } = progress;
  const started = progress.steps.some(
    (step) => step.status === 'running' || step.status === 'done' || step.status === 'failed',
  );
  return (
    <>
      {error !== null && (
        <ErrorPanel what={started ? 'The rotation' : 'Starting the rotation'} error={error} />
      )}
      {interrupted && (
        <div
          role="alert"
          className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-950 dark:border-red-800 dark:bg-red-950/40 dark:text-red-100"
        >
          <p className="font-semibold">
            The rotation’s progress stopped before it said it was done.
          </p>
          <p className="mt-1">
            The steps above are what the workbench server reported. Refresh the page and open this
            key’s History to see which steps ran before trying again.
          </p>
        </div>
      )}
      {outcome?.ok && (
        <div
          role="status"
          className="rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm text-emerald-950 dark:border-emerald-800 dark:bg-emerald-950/40 dark:text-emerald-50"
        >
          <p className="font-semibold">Rotation complete: all four steps are done.</p>
          <p className="mt-1">{outcome.state}</p>
          {outcome.advice && <p className="mt-1">{outcome.advice}</p>}
        </div>
      )}
      {outcome && !outcome.ok && (
        <div
          role="alert"
          className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-950 dark:border-red-800 dark:bg-red-950/40 dark:text-red-100"
        >
          <p className="font-semibold">
            {outcome.failed_step !== null
              ? `The rotation failed at step ${outcome.failed_step}: ${rotationSteps[outcome.failed_step - 1]?.title ?? ''}.`
              : 'The rotation failed.'}{' '}
            It stopped there.
          </p>
          <p className="mt-1">
            <span className="font-semibold">State of the keys: </span>
            {outcome.state}
          </p>
          <p className="mt-1">
            <span className="font-semibold">What to do: </span>
            {outcome.advice}
          </p>
        </div>
      )}
      {unreadable.length > 0 && (
        <p className="text-xs text-zinc-600 dark:text-zinc-400">
          {unreadable.length} line{unreadable.length === 1 ? '' : 's'} of the progress could not be
          read.
        </p>
      )}
    </>
  );
}
