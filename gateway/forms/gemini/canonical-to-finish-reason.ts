import type { FinishReason } from '../../canonical/model';

/**
 * Canonical finish reason → Gemini `finishReason`. The form says `STOP` for a natural end, a stop
 * sequence and a function call alike.
 * @see https://ai.google.dev/api/generate-content#FinishReason
 */
export function toGeminiFinishReason(reason: FinishReason): string {
  switch (reason) {
    case 'length':
      return 'MAX_TOKENS';
    case 'content_filter':
      return 'SAFETY';
    case 'error':
      return 'OTHER';
    case 'stop':
    case 'stop_sequence':
    case 'tool_calls':
    default:
      return 'STOP';
  }
}
