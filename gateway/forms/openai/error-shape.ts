/** The gateway's own error shape, used by the chat-completion form and the core routes. */
import type { GatewayError } from '../../errors';

export function chatErrorBody(error: GatewayError, traceId: string) {
  return {
    error: error.message,
    type: error.type,
    stage: error.stage,
    request_id: traceId,
    ...(error.retryAfterSeconds === undefined ? {} : { retry_after: error.retryAfterSeconds }),
  };
}
