/** A GatewayError in the Gemini form's error shape, with the same status as every other form. */
import type { GatewayError } from '../../errors';

/**
 * HTTP status → the vendor's canonical status name. 402 has no vendor counterpart; a key that
 * cannot pay is a precondition the caller must fix, so FAILED_PRECONDITION (with code 402).
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 * @see https://cloud.google.com/apis/design/errors#handling_errors
 */
export function geminiStatusName(status: number): string {
  switch (status) {
    case 400:
    case 405:
    case 413:
    case 415:
      return 'INVALID_ARGUMENT';
    case 401:
      return 'UNAUTHENTICATED';
    case 402:
      return 'FAILED_PRECONDITION';
    case 403:
      return 'PERMISSION_DENIED';
    case 404:
      return 'NOT_FOUND';
    case 429:
      return 'RESOURCE_EXHAUSTED';
    case 499:
      return 'CANCELLED';
    case 502:
    case 503:
      return 'UNAVAILABLE';
    case 504:
      return 'DEADLINE_EXCEEDED';
    default:
      return status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT';
  }
}

/** The trace id rides in the vendor's own `google.rpc.RequestInfo` detail. */
export function geminiErrorBody(error: GatewayError, traceId: string) {
  return {
    error: {
      code: error.status,
      message: error.message,
      status: geminiStatusName(error.status),
      details: [{ '@type': 'type.googleapis.com/google.rpc.RequestInfo', requestId: traceId }],
    },
  };
}
