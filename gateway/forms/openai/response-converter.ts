/** Canonical response → chat completion, and the canonical usage → chat-completion usage. */
import type { CanonicalResponse, PricedFinish } from '../../canonical/model';
import { toChatFinishReason } from './finish-reason';

export function toChatUsage(finish: PricedFinish) {
  const { promptTokens, completionTokens } = finish.usage;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    cost: finish.costUsd,
  };
}

/** Chat-completion ids are `chatcmpl-` + the trace id's hex, so the two can be matched. */
export const completionId = (traceId: string) => `chatcmpl-${traceId.slice(0, 16)}`;

export function toChatCompletion(
  response: CanonicalResponse,
  model: string,
  traceId: string,
  created: number,
) {
  const toolCalls = response.toolCalls.map((call) => ({
    id: call.id,
    type: 'function' as const,
    function: { name: call.name, arguments: call.arguments },
  }));
  return {
    id: completionId(traceId),
    object: 'chat.completion',
    created,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: toolCalls.length > 0 && response.text === '' ? null : response.text,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          refusal: null,
        },
        logprobs: null,
        finish_reason: toChatFinishReason(response.finish.finishReason),
      },
    ],
    usage: toChatUsage(response.finish),
  };
}
