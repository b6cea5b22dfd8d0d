import type { FinishReason } from '../../canonical/model';

/**
 * Canonical finish reason → chat-completion `finish_reason`. A stop sequence is a plain `stop`
 * there; a provider error ends the choice as `stop` too, since the form has no better word.
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices
 */
export function toChatFinishReason(reason: FinishReason): string {
  switch (reason) {
    case 'length':
      return 'length';
    case 'tool_calls':
      return 'tool_calls';
    case 'content_filter':
      return 'content_filter';
    case 'stop':
    case 'stop_sequence':
    case 'error':
    default:
      return 'stop';
  }
}
