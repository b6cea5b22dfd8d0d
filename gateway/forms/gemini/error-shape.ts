/** A GatewayError in the Gemini form's error shape, with the same status as every other form. */
import { z } from 'zod';
import { errorStageSchema } from '../../../contract/gateway';
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

/** The body `geminiErrorBody` writes, exactly; the OpenAPI document describes it with this. */
export const geminiErrorBodySchema = z.object({
  error: z.object({
    code: z.number().int().describe('The HTTP status.'),
    message: z.string(),
    status: z.string().describe("The vendor's status name, e.g. UNAUTHENTICATED."),
    details: z.array(
      z.union([
        z.object({
          '@type': z.literal('type.googleapis.com/google.rpc.RequestInfo'),
          requestId: z.string().describe("The request's trace id, as its cf-ray header."),
        }),
        z.object({
          '@type': z.literal('type.googleapis.com/google.rpc.RetryInfo'),
          retryDelay: z.string(),
        }),
      ]),
    ),
    stage: errorStageSchema,
    retry_after: z.number().int().optional(),
  }),
});

/**
 * The vendor's `google.rpc.Status` envelope. The trace id rides in its own `RequestInfo` detail,
 * and the delay before a retry in a `RetryInfo` one, as the vendor sends it with a 429. The
 * gateway's `stage` and `retry_after` (as the chat-completion form gives them) are added inside
 * `error` too: the vendor's SDK reads `code` of it and keeps the rest as the error's message, so
 * the extra fields break no client.
 * @see https://cloud.google.com/apis/design/errors#error_details
 */
export function geminiErrorBody(
  error: GatewayError,
  traceId: string,
): z.output<typeof geminiErrorBodySchema> {
  const retryAfter = error.retryAfterSeconds;
  return {
    error: {
      code: error.status,
      message: error.message,
      status: geminiStatusName(error.status),
      details: [
        { '@type': 'type.googleapis.com/google.rpc.RequestInfo', requestId: traceId },
        ...(retryAfter === undefined
          ? []
          : [
              {
                '@type': 'type.googleapis.com/google.rpc.RetryInfo' as const,
                retryDelay: `${retryAfter}s`,
              },
            ]),
      ],
      stage: error.stage,
      ...(retryAfter === undefined ? {} : { retry_after: retryAfter }),
    },
  };
}
