import type { FinishReason } from '../../canonical/model';

/**
 * Chat-completions `finish_reason` → canonical, keeping the upstream's own word. `function_call`
 * is the deprecated spelling of `tool_calls`; `error` is OpenRouter's, for a generation that failed
 * mid-way. Anything else (a server's own reason, or none) counts as a plain stop.
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices
 * @see https://openrouter.ai/docs/api/errors (errors during streaming end with `error`)
 */
export function mapFinishReason(raw: string | null | undefined): {
  unified: FinishReason;
  raw: string | null;
} {
  const unified = ((): FinishReason => {
    switch (raw) {
      case 'stop':
        return 'stop';
      case 'length':
        return 'length';
      case 'tool_calls':
      case 'function_call':
        return 'tool_calls';
      case 'content_filter':
        return 'content_filter';
      case 'error':
        return 'error';
      default:
        return 'stop';
    }
  })();
  return { unified, raw: raw ?? null };
}
