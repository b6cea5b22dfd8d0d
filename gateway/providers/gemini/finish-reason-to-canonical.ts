import type { FinishReason } from '../../canonical/model';

export type MappedFinishReason = { unified: FinishReason; raw: string | null };

/**
 * Gemini `finishReason` → canonical finish reason, keeping the vendor's word. The vendor says
 * `STOP` for a natural end, a stop sequence and function calls alike, and never which sequence
 * matched; so `STOP` with function calls in the answer is `tool_calls`, and never `stop_sequence`.
 * Reasons not listed (`OTHER`, `LANGUAGE`, image-generation ones, newer values) read as `STOP`:
 * only a reason that says the model's output was broken is an `error`.
 * @see https://ai.google.dev/api/generate-content#FinishReason
 */
export function mapFinishReason(
  raw: string | null | undefined,
  madeToolCalls: boolean,
): MappedFinishReason {
  const kept = raw ?? null;
  switch (raw) {
    case 'STOP':
      return { unified: madeToolCalls ? 'tool_calls' : 'stop', raw: kept };
    case 'MAX_TOKENS':
      return { unified: 'length', raw: kept };
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
    case 'IMAGE_PROHIBITED_CONTENT':
    case 'IMAGE_RECITATION':
      return { unified: 'content_filter', raw: kept };
    case 'MALFORMED_FUNCTION_CALL':
    case 'UNEXPECTED_TOOL_CALL':
    case 'TOO_MANY_TOOL_CALLS':
    case 'MISSING_THOUGHT_SIGNATURE':
      return { unified: 'error', raw: kept };
    default:
      return { unified: madeToolCalls ? 'tool_calls' : 'stop', raw: kept };
  }
}

/**
 * A prompt the vendor refused to answer at all (`promptFeedback.blockReason`, no candidates): every
 * block reason (`SAFETY`, `BLOCKLIST`, `PROHIBITED_CONTENT`, `IMAGE_SAFETY`, `OTHER`) is a filter.
 * @see https://ai.google.dev/api/generate-content#BlockReason
 */
export function mapBlockReason(raw: string): MappedFinishReason {
  return { unified: 'content_filter', raw };
}
