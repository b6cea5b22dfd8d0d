import { ApiRequestError } from '../lib/api-client';
import { Button } from './button';

const stageNames: Record<string, string> = {
  validation: 'request validation',
  profile: 'key profile lookup',
  connect: 'connecting to the gateway',
  first_byte: 'waiting for the gateway’s first byte',
  deadline: 'receiving the gateway’s answer (too slow)',
  too_large: 'receiving the gateway’s answer (too large)',
  gateway: 'the gateway',
  authentication: 'authentication',
  admission: 'admission (balance and key state)',
  provider: 'the model provider',
  settlement: 'settlement',
  internal: 'the workbench server',
  network: 'reaching the workbench server',
  response: 'reading the workbench server’s answer',
};

/** Plain words for a stage name. */
export function describeStage(stage: string): string {
  return stageNames[stage] ?? stage;
}

/**
 * What failed, at which stage, the trace id when there is one, and what to do. `what` names
 * the thing the page tried, e.g. "Loading the catalog".
 */
export function ErrorPanel({
  what,
  error,
  onRetry,
}: {
  what: string;
  error: unknown;
  onRetry?: () => void;
}) {
  const apiError = error instanceof ApiRequestError ? error : null;
  const message = error instanceof Error ? error.message : 'An unknown error happened.';
  return (
    <div
      role="alert"
      className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-950 dark:border-red-800 dark:bg-red-950/40 dark:text-red-100"
    >
      <p className="font-semibold">{what} failed.</p>
      <p className="mt-1">{message}</p>
      <dl className="mt-2 grid grid-cols-[max-content_1fr] gap-x-3 gap-y-0.5 text-xs">
        {apiError && (
          <>
            <dt className="text-red-800 dark:text-red-300">Stage</dt>
            <dd>{describeStage(apiError.stage)}</dd>
            <dt className="text-red-800 dark:text-red-300">Request</dt>
            <dd className="font-mono">
              {apiError.request}
              {apiError.status ? ` → HTTP ${apiError.status}` : ''}
              {apiError.upstreamStatus ? ` (gateway HTTP ${apiError.upstreamStatus})` : ''}
            </dd>
          </>
        )}
        {apiError?.field && (
          <>
            <dt className="text-red-800 dark:text-red-300">Field</dt>
            <dd className="font-mono">{apiError.field}</dd>
          </>
        )}
        {apiError?.type && (
          <>
            <dt className="text-red-800 dark:text-red-300">Type</dt>
            <dd className="font-mono">{apiError.type}</dd>
          </>
        )}
        {apiError?.cfRay && (
          <>
            <dt className="text-red-800 dark:text-red-300">cf-ray</dt>
            <dd className="font-mono select-all">{apiError.cfRay}</dd>
          </>
        )}
      </dl>
      {apiError?.advice && (
        <p className="mt-2">
          <span className="font-semibold">What to do: </span>
          {apiError.advice}
        </p>
      )}
      {onRetry && (
        <Button className="mt-3" size="small" onClick={onRetry}>
          Try again
        </Button>
      )}
    </div>
  );
}
