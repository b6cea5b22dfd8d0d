/** A GatewayError in the Messages form's error shape, with the same status as every other form. */
import { z } from 'zod';
import { errorStageSchema } from '../../../contract/gateway';
import type { GatewayError } from '../../errors';

/**
 * Status → the vendor's error type, so its client raises the matching error class. 402 has no
 * vendor-documented type on this route; the vendor's own `billing_error` says what it is.
 * @see https://docs.anthropic.com/en/api/errors
 */
export function messagesErrorType(status: number): string {
  switch (status) {
    case 400:
    case 405:
    case 415:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 402:
      return 'billing_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 503:
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/** The body `messagesErrorBody` writes, exactly; the OpenAPI document describes it with this. */
export const messagesErrorBodySchema = z.object({
  type: z.literal('error'),
  error: z.object({
    type: z.string().describe("The vendor's error type for the status, e.g. not_found_error."),
    message: z.string(),
    stage: errorStageSchema,
    retry_after: z.number().int().optional(),
  }),
  request_id: z.string().describe("The request's trace id, as its cf-ray header."),
});

/**
 * The vendor's envelope, with the gateway's `stage` and `retry_after` (as the chat-completion form
 * gives them) added inside `error`: the vendor's SDK keeps the whole body (`APIError.error`) and
 * reads only `type`, `message` and `details` of it, so the extra fields break no client.
 */
export function messagesErrorBody(
  error: GatewayError,
  traceId: string,
): z.output<typeof messagesErrorBodySchema> {
  return {
    type: 'error',
    error: {
      type: messagesErrorType(error.status),
      message: error.message,
      stage: error.stage,
      ...(error.retryAfterSeconds === undefined ? {} : { retry_after: error.retryAfterSeconds }),
    },
    request_id: traceId,
  };
}
