/** Canonical response → Messages `message`, and canonical usage → Messages usage. */
import type { CanonicalResponse, PricedFinish } from '../../canonical/model';
import { toStopReason } from './stop-reason';

/** Message ids are `msg_` + the trace id's hex, so the two can be matched. */
export const messageId = (traceId: string) => `msg_${traceId.slice(0, 16)}`;

/** Tool arguments are JSON text canonically; this form wants the object (an empty one if broken). */
export function toolInput(argumentsText: string): unknown {
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/**
 * The vendor's usage fields, plus the gateway's cost in `cost_usd`: an extra field the vendor's
 * clients carry along untouched.
 */
export function toMessagesUsage(finish: PricedFinish) {
  return {
    input_tokens: finish.usage.promptTokens,
    output_tokens: finish.usage.completionTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cost_usd: finish.costUsd,
  };
}

export function toMessagesResponse(response: CanonicalResponse, model: string, traceId: string) {
  const content: Array<Record<string, unknown>> = [];
  if (response.text !== '' || response.toolCalls.length === 0)
    content.push({ type: 'text', text: response.text });
  for (const call of response.toolCalls) {
    content.push({
      type: 'tool_use',
      id: call.id,
      name: call.name,
      input: toolInput(call.arguments),
    });
  }
  return {
    id: messageId(traceId),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: toStopReason(response.finish.finishReason),
    stop_sequence: response.finish.stopSequence,
    usage: toMessagesUsage(response.finish),
  };
}
