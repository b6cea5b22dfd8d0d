/** The gateway's own error shape, used by the chat-completion form and the core routes. */
import { z } from 'zod';
import { errorStageSchema } from '../../../contract/gateway';
import { gatewayErrorTypeSchema, type GatewayError } from '../../errors';

/** The body `chatErrorBody` writes, exactly; the OpenAPI document describes it with this. */
export const chatErrorBodySchema = z.object({
  error: z.string().describe('What went wrong and what to do; never holds a key.'),
  type: gatewayErrorTypeSchema,
  stage: errorStageSchema,
  request_id: z.string().describe("The request's trace id, as its cf-ray header."),
  retry_after: z.number().int().optional().describe('Seconds after which a retry may succeed.'),
});

export function chatErrorBody(
  error: GatewayError,
  traceId: string,
): z.output<typeof chatErrorBodySchema> {
  return {
    error: error.message,
    type: error.type,
    stage: error.stage,
    request_id: traceId,
    ...(error.retryAfterSeconds === undefined ? {} : { retry_after: error.retryAfterSeconds }),
  };
}
