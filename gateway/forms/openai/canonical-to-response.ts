/**
 * Canonical response → chat completion, and the canonical usage → chat-completion usage. A refusal
 * and log probabilities are the upstream's (only an OpenAI-compatible one sends them, and only a
 * same-form request reaches one with `logprobs`); without them both are null, as the vendor sends.
 */
import type { CanonicalResponse, PricedFinish } from '../../canonical/model';
import { toChatFinishReason } from './canonical-to-finish-reason';

/**
 * The vendor's `prompt_tokens` counts the whole prompt, cache reads and writes in it; of it,
 * `cached_tokens` were read from the cache and `cache_write_tokens` written to it (OpenRouter's
 * field: OpenAI's own caching writes at no charge, so it has none).
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage
 * @see https://openrouter.ai/docs/use-cases/usage-accounting
 */
export function toChatUsage(finish: PricedFinish) {
  const {
    promptTokens,
    completionTokens,
    cacheReadTokens = 0,
    cacheWriteTokens = 0,
    reasoningTokens = 0,
  } = finish.usage;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    ...((cacheReadTokens > 0 || cacheWriteTokens > 0) && {
      prompt_tokens_details: {
        cached_tokens: cacheReadTokens,
        ...(cacheWriteTokens > 0 && { cache_write_tokens: cacheWriteTokens }),
      },
    }),
    // Of the completion (and charged with it), the tokens spent reasoning.
    ...(reasoningTokens > 0 && {
      completion_tokens_details: { reasoning_tokens: reasoningTokens },
    }),
    cost: finish.costUsd,
  };
}

/**
 * The upstream's log probabilities (an OpenAI-compatible upstream's, passed on raw when the client
 * asked for them) in the vendor's shape: null for a part that has none.
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices
 */
export function toChatLogprobs(logprobs: { content: unknown[]; refusal: unknown[] }) {
  return {
    content: logprobs.content.length > 0 ? logprobs.content : null,
    refusal: logprobs.refusal.length > 0 ? logprobs.refusal : null,
  };
}

/**
 * A reasoning block as OpenRouter's `reasoning_details` entry: text with its signature (sealed,
 * see canonical/reasoning-signature.ts), or encrypted data. `index` numbers the blocks.
 * @see https://openrouter.ai/docs/use-cases/reasoning-tokens#reasoning-details
 */
export function reasoningDetail(
  block: { text: string; signature?: string; encrypted?: string },
  index: number,
) {
  if (block.encrypted !== undefined)
    return { type: 'reasoning.encrypted', data: block.encrypted, index };
  return {
    type: 'reasoning.text',
    text: block.text,
    ...(block.signature !== undefined && { signature: block.signature }),
    index,
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
  const refusal = response.refusal ?? null;
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
          // Null, as the vendor sends it, when the answer is only tool calls or a refusal.
          content:
            response.text === '' && (toolCalls.length > 0 || refusal !== null)
              ? null
              : response.text,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          refusal,
          // OpenRouter's fields for the reasoning: its text, and its blocks with their signatures.
          ...(response.reasoning && {
            reasoning: response.reasoning.map((block) => block.text).join(''),
            reasoning_details: response.reasoning.map(reasoningDetail),
          }),
        },
        logprobs: response.logprobs ? toChatLogprobs(response.logprobs) : null,
        finish_reason: toChatFinishReason(response.finish.finishReason),
      },
    ],
    usage: toChatUsage(response.finish),
  };
}
