import type { FinishReason } from '../../canonical/model';

/**
 * Canonical finish reason → Messages `stop_reason`. A provider error that still ended the answer
 * is an `end_turn`: the form has no word for it, and the error itself travels separately.
 * @see https://docs.anthropic.com/en/api/handling-stop-reasons
 */
export function toStopReason(reason: FinishReason): string {
  switch (reason) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
      return 'tool_use';
    case 'stop_sequence':
      return 'stop_sequence';
    case 'content_filter':
      return 'refusal';
    case 'stop':
    case 'error':
    default:
      return 'end_turn';
  }
}
