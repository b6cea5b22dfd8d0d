/** Canonical response → Messages `message`, and canonical usage → Messages usage. */
import type { CanonicalResponse, PricedFinish } from '../../canonical/model';
import { brokenToolArguments, toolArguments, UNFINISHED } from '../tool-arguments';
import { toStopReason } from './stop-reason';

/** Message ids are `msg_` + the trace id's hex, so the two can be matched. */
export const messageId = (traceId: string) => `msg_${traceId.slice(0, 16)}`;

/**
 * The vendor's usage fields, plus the gateway's cost in `cost_usd`: an extra field the vendor's
 * clients carry along untouched.
 */
export function toMessagesUsage(finish: PricedFinish) {
  const {
    promptTokens,
    completionTokens,
    cacheReadTokens = 0,
    cacheWriteTokens = 0,
    cacheWriteHourTokens = 0,
  } = finish.usage;
  return {
    // The vendor's `input_tokens` leaves out what was read from or written to the cache.
    input_tokens: promptTokens - cacheReadTokens - cacheWriteTokens,
    output_tokens: completionTokens,
    cache_creation_input_tokens: cacheWriteTokens,
    cache_read_input_tokens: cacheReadTokens,
    // The writes by cache lifetime, which the vendor prices apart.
    cache_creation: {
      ephemeral_5m_input_tokens: cacheWriteTokens - cacheWriteHourTokens,
      ephemeral_1h_input_tokens: cacheWriteHourTokens,
    },
    cost_usd: finish.costUsd,
  };
}

/**
 * A reasoning block as the vendor's: `thinking` with its signature (sealed: the gateway's, see
 * canonical/reasoning-signature.ts; empty when its provider gave none, which no provider will
 * take back), or `redacted_thinking` for an encrypted one.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
 */
export function thinkingBlock(block: NonNullable<CanonicalResponse['reasoning']>[number]) {
  if (block.encrypted !== undefined) return { type: 'redacted_thinking', data: block.encrypted };
  return { type: 'thinking', thinking: block.text, signature: block.signature ?? '' };
}

/**
 * A refusal (an OpenAI-compatible upstream's `refusal`) has no field of its own here: it is what
 * the model said, so it is text, as it is in the stream.
 */
export function toMessagesResponse(response: CanonicalResponse, model: string, traceId: string) {
  const text = response.text + (response.refusal ?? '');
  const toolUses: Array<Record<string, unknown>> = [];
  response.toolCalls.forEach((call, index) => {
    const input = toolArguments(call.arguments, call.name);
    if (input !== UNFINISHED) {
      toolUses.push({ type: 'tool_use', id: call.id, name: call.name, input });
      return;
    }
    // Cut short by max_tokens: the plain answer cannot carry unfinished arguments (`input` is an
    // object), and `{}` or a guessed completion would be a call the model never made. It is left
    // out; stop_reason max_tokens says the answer was cut, and the vendor's advice for that is to
    // retry with more room. (The stream passes the partial JSON on instead, as the vendor's own
    // stream does: see stream-transform.ts.)
    if (response.finish.finishReason !== 'length' || index !== response.toolCalls.length - 1)
      throw brokenToolArguments(call.name);
  });
  // Reasoning comes first, as the vendor's thinking blocks do.
  const content: Array<Record<string, unknown>> = (response.reasoning ?? []).map(thinkingBlock);
  if (text !== '' || toolUses.length === 0) content.push({ type: 'text', text });
  content.push(...toolUses);
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
