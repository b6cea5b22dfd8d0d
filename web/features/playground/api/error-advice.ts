/**
 * Turns every way a chat run can fail into one `RunError` with advice for its status,
 * so the reply shows status, stage, cf-ray and what to do next in the same form every time.
 */
import { gatewayErrorBodySchema } from '../../../../contract/gateway';
import { ApiRequestError } from '../../../lib/api-client';
import type { RunError } from '../playground-types';

/** An error reported inside a stream or a JSON body (no HTTP status of its own). */
export interface StreamError {
  message: string;
  stage: string;
  type: string | null;
  /** Written by the workbench server (`event: error`) rather than sent by the gateway. */
  fromWorkbench?: boolean;
}

/**
 * True when a stream that ended without its end (`[DONE]`) did so because the connection to the
 * gateway was lost, not because the gateway reported an error: the workbench server's own error
 * for a gateway answer that broke off or went silent, or no error at all.
 */
export function connectionLost(error: StreamError | null): boolean {
  if (error === null) return true;
  return error.fromWorkbench === true && (error.stage === 'gateway' || error.stage === 'deadline');
}

/** The run error for a streamed answer that broke off: what arrived is kept, the rest lost. */
export function runErrorForBrokenStream(
  error: StreamError | null,
  upstreamStatus: number | null,
  cfRay: string | null,
): RunError {
  return {
    message: `The answer broke off: the connection to the gateway was lost before the stream’s end.${
      error ? ` The workbench server said: ${error.message}` : ''
    }`,
    status: 200,
    stage: error?.stage ?? 'gateway',
    upstreamStatus,
    cfRay,
    advice:
      'The text above is what arrived before the connection was lost; the charge below is what the gateway recorded for it. Check that the gateway is up (the Endpoints page runs checks), then Re-run the reply.',
    type: null,
    brokeOff: true,
  };
}

/**
 * The generic advice for a gateway status. The 401 and 402 wording is precise on purpose: a
 * person reading it knows exactly what to check, and that retrying a 402 unchanged is useless.
 */
export function adviceForStatus(status: number | null | undefined): string | null {
  switch (status) {
    case 401:
      return 'Check that the key is present, starts with sk-, and is sent in a supported form (Authorization: Bearer header, or the ?key= query parameter).';
    case 402:
      return 'Check the key’s state and balance on the Keys page (expired, disabled, parent disabled or depleted). Do not retry unchanged: the same request will fail again.';
    case 403:
      return 'The gateway or its upstream refused this request for this key; check what the key may use before retrying.';
    case 429:
      return 'A rate or capacity limit was reached; wait and retry later, keeping the Trace ID if it persists.';
    default:
      if (typeof status === 'number' && status >= 500) {
        return 'The gateway or the provider failed; retry later, and quote the Trace ID if it persists.';
      }
      return null;
  }
}

/** Reads an error out of a payload the gateway sent where a chunk or completion was expected. */
export function errorFromStreamPayload(payload: unknown): StreamError | null {
  const gatewayError = gatewayErrorBodySchema.safeParse(payload);
  if (gatewayError.success) {
    return {
      message: gatewayError.data.error,
      stage: gatewayError.data.stage ?? 'gateway',
      type: gatewayError.data.type ?? null,
    };
  }
  // Some upstreams nest the error: `{"error": {"message": …, "type": …}}`.
  if (typeof payload === 'object' && payload !== null && 'error' in payload) {
    const inner = (payload as { error: unknown }).error;
    if (typeof inner === 'object' && inner !== null && 'message' in inner) {
      const message = (inner as { message: unknown }).message;
      const type = (inner as { type?: unknown }).type;
      return {
        message: typeof message === 'string' ? message : JSON.stringify(message),
        stage: 'gateway',
        type: typeof type === 'string' ? type : null,
      };
    }
  }
  return null;
}

/**
 * One piece of advice: the BFF's, which is the one author of advice for gateway errors (it knows
 * the error type, the key's kind and the model, and its own failures, such as an unreachable
 * gateway: server/core/errors.ts), else the generic one for the status, for an error that arrived inside
 * a stream. Joining the two said it twice.
 */
function combineAdvice(serverAdvice: string | null | undefined, status: number | null | undefined) {
  return (serverAdvice?.trim() ? serverAdvice : null) ?? adviceForStatus(status);
}

/** The run error for anything a send threw (an `ApiRequestError` or something unexpected). */
export function runErrorFromThrown(error: unknown): RunError {
  if (error instanceof ApiRequestError) {
    const status = error.upstreamStatus ?? error.status;
    return {
      message: error.message,
      status: error.status,
      stage: error.stage,
      upstreamStatus: error.upstreamStatus ?? null,
      cfRay: error.cfRay ?? null,
      advice: combineAdvice(error.advice, status),
      type: error.type ?? null,
    };
  }
  return {
    message: error instanceof Error ? error.message : String(error),
    status: 0,
    stage: 'internal',
    upstreamStatus: null,
    cfRay: null,
    advice: 'Something in the page failed; the raw view shows what was sent. Reload and try again.',
    type: null,
  };
}

/** The run error for a gateway error that arrived inside a 2xx BFF answer. */
export function runErrorFromStream(
  error: StreamError,
  upstreamStatus: number | null,
  cfRay: string | null,
): RunError {
  return {
    message: error.message,
    status: 200,
    stage: error.stage,
    upstreamStatus,
    cfRay,
    advice:
      combineAdvice(
        null,
        upstreamStatus !== null && upstreamStatus >= 400 ? upstreamStatus : null,
      ) ?? 'The gateway reported an error while answering; the raw view shows the events received.',
    type: error.type,
  };
}
