import type { FinishReason } from '../../canonical/model';

/**
 * Messages `stop_reason` → canonical finish reason, keeping the vendor's word. `pause_turn` (a
 * server tool paused a long turn) ends this answer like `end_turn`; unknown reasons are a stop.
 * @see https://docs.anthropic.com/en/api/handling-stop-reasons
 */
export function mapStopReason(raw: string | null | undefined): {
  unified: FinishReason;
  raw: string | null;
} {
  switch (raw) {
    case 'end_turn':
    case 'pause_turn':
      return { unified: 'stop', raw };
    case 'max_tokens':
      return { unified: 'length', raw };
    case 'stop_sequence':
      return { unified: 'stop_sequence', raw };
    case 'tool_use':
      return { unified: 'tool_calls', raw };
    case 'refusal':
      return { unified: 'content_filter', raw };
    default:
      return { unified: 'stop', raw: raw ?? null };
  }
}
