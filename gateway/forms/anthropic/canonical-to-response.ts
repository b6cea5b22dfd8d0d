/** Canonical response → Messages `message`, and canonical usage → Messages usage. */
import { z } from 'zod';
import type { CanonicalResponse, PricedFinish, Usage } from '../../canonical/model';
import { brokenToolArguments, toolArguments, UNFINISHED } from '../tool-arguments';
import { toStopReason } from './canonical-to-stop-reason';

const messagesUsageSchema = z.object({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cache_creation_input_tokens: z.number().int(),
  cache_read_input_tokens: z.number().int(),
  cache_creation: z.object({
    ephemeral_5m_input_tokens: z.number().int(),
    ephemeral_1h_input_tokens: z.number().int(),
  }),
  /** Of `output_tokens`, those spent thinking; left out when the provider said none. */
  output_tokens_details: z.object({ thinking_tokens: z.number().int() }).optional(),
  cost_usd: z.number().describe("The gateway's charge for the request, in USD."),
});

/**
 * The `message` `toMessagesResponse` writes (the OpenAPI document describes it with this, and its
 * test holds real answers to it).
 * @see https://docs.anthropic.com/en/api/messages
 */
export const messagesResponseSchema = z.object({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string(),
  content: z.array(
    z.discriminatedUnion('type', [
      z.object({ type: z.literal('text'), text: z.string() }),
      z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }),
      z.object({ type: z.literal('redacted_thinking'), data: z.string() }),
      z.object({
        type: z.literal('tool_use'),
        id: z.string(),
        name: z.string(),
        input: z.record(z.string(), z.unknown()),
      }),
    ]),
  ),
  stop_reason: z.enum(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'refusal']),
  stop_sequence: z.string().nullable(),
  usage: messagesUsageSchema,
});

/** Message ids are `msg_` + the trace id's hex, so the two can be matched. */
export const messageId = (traceId: string) => `msg_${traceId.slice(0, 16)}`;

/** The prompt's side of a usage, told or charged: the whole prompt, and of it the cache's part. */
type PromptUsage = Pick<Usage, 'cacheReadTokens' | 'cacheWriteTokens' | 'cacheWriteHourTokens'> & {
  promptTokens: number;
};

/**
 * The prompt's usage fields as the vendor's: its `input_tokens` leaves out what was read from or
 * written to the cache, and the writes are split by cache lifetime, which the vendor prices apart.
 * `message_start` tells these before the answer, `message_delta` and the plain answer at its end.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#tracking-cache-performance
 */
export function toMessagesPromptUsage(usage: PromptUsage) {
  const {
    promptTokens,
    cacheReadTokens = 0,
    cacheWriteTokens = 0,
    cacheWriteHourTokens = 0,
  } = usage;
  return {
    // Never below 0, even against the gateway's own count of a prompt the provider did not count.
    input_tokens: Math.max(0, promptTokens - cacheReadTokens - cacheWriteTokens),
    cache_creation_input_tokens: cacheWriteTokens,
    cache_read_input_tokens: cacheReadTokens,
    cache_creation: {
      ephemeral_5m_input_tokens: cacheWriteTokens - cacheWriteHourTokens,
      ephemeral_1h_input_tokens: cacheWriteHourTokens,
    },
  };
}

/**
 * The vendor's usage fields, plus the gateway's cost in `cost_usd`: an extra field the vendor's
 * clients carry along untouched. Every count is the whole answer's (the vendor's stream counts
 * are cumulative), so `message_delta` carries the same.
 */
export function toMessagesUsage(finish: PricedFinish): z.output<typeof messagesUsageSchema> {
  const { completionTokens, reasoningTokens = 0 } = finish.usage;
  return {
    ...toMessagesPromptUsage(finish.usage),
    output_tokens: completionTokens,
    // Of the output (which stays the count billed), the tokens spent thinking.
    ...(reasoningTokens > 0 && { output_tokens_details: { thinking_tokens: reasoningTokens } }),
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
    // stream does: see canonical-to-stream.ts.)
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
