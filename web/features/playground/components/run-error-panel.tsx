/** A failed run in place of its reply: status, stage, cf-ray and what to do next. */
import type { RunError } from '../playground-types';
import { ErrorPanel } from '../../../components/error-panel';
import { ApiRequestError } from '../../../lib/api-client';
import type { ApiRequestStage } from '../../../lib/api-client';

export function RunErrorPanel({ error }: { error: RunError }) {
  // The shared panel reads an ApiRequestError; a stored run keeps only its plain fields.
  const apiError = new ApiRequestError({
    message: error.message,
    status: error.status,
    stage: error.stage as ApiRequestStage,
    request: 'POST /api/chat',
    cfRay: error.cfRay ?? undefined,
    advice: error.advice ?? undefined,
    upstreamStatus: error.upstreamStatus ?? undefined,
    type: error.type ?? undefined,
  });
  const status = error.upstreamStatus ?? error.status;
  // A stream that broke off did not fail as a request (it was answered, HTTP 200): the answer
  // stopped arriving.
  const what = error.brokeOff
    ? 'Receiving the answer'
    : status
      ? `The request (HTTP ${status})`
      : 'The request';
  return <ErrorPanel what={what} error={apiError} />;
}
