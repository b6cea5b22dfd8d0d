/**
 * A whole Messages answer → canonical events: its text and tool calls in order, then `finish`.
 * @see https://docs.anthropic.com/en/api/messages
 */
import type { CanonicalEvent, ReportedUsage } from '../../canonical/model';
import { sealSignature } from '../../canonical/reasoning-signature';
import { UpstreamError } from '../upstream-error';
import { mapStopReason } from './stop-reason-to-canonical';
import {
  messageResponseSchema,
  redactedThinkingBlockSchema,
  textBlockSchema,
  thinkingBlockSchema,
  toolUseBlockSchema,
  type AnthropicUsage,
} from './wire-schema';

export function fromMessagesResponse(body: unknown, providerId: string): CanonicalEvent[] {
  const response = messageResponseSchema.safeParse(body);
  if (!response.success) throw malformed(providerId);
  const events: CanonicalEvent[] = [];
  for (const block of response.data.content) {
    if (block.type === 'text') {
      const text = textBlockSchema.safeParse(block);
      if (!text.success) throw malformed(providerId);
      if (text.data.text !== '') events.push({ type: 'text-delta', text: text.data.text });
    } else if (block.type === 'tool_use') {
      const call = toolUseBlockSchema.safeParse(block);
      if (!call.success) throw malformed(providerId);
      events.push({
        type: 'tool-call',
        id: call.data.id,
        name: call.data.name,
        arguments: JSON.stringify(call.data.input ?? {}),
      });
    } else if (block.type === 'thinking' || block.type === 'redacted_thinking') {
      events.push(reasoningEvent(block, providerId));
    }
    // Server tool blocks and any newer types are skipped.
  }
  events.push(
    finishEvent(
      response.data.stop_reason,
      response.data.stop_sequence,
      toUsage(response.data.usage),
    ),
  );
  return events;
}

/**
 * The vendor's usage → canonical usage. Its `input_tokens` counts only what was neither written to
 * nor read from the prompt cache, so the prompt is all three.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#tracking-cache-performance
 */
export function toUsage(usage: AnthropicUsage | null | undefined): ReportedUsage | null {
  if (!usage) return null;
  // Without `input_tokens` the prompt is unreported: the cache counts alone are only part of it.
  const input = usage.input_tokens ?? null;
  const cacheReadTokens = usage.cache_read_input_tokens ?? 0;
  const cacheWriteTokens = usage.cache_creation_input_tokens ?? 0;
  // One-hour writes are priced apart; never more of them than writes in all.
  const cacheWriteHourTokens = Math.min(
    usage.cache_creation?.ephemeral_1h_input_tokens ?? 0,
    cacheWriteTokens,
  );
  const reasoningTokens = usage.output_tokens_details?.thinking_tokens ?? 0;
  return {
    promptTokens: input === null ? null : input + cacheWriteTokens + cacheReadTokens,
    completionTokens: usage.output_tokens ?? null,
    ...(cacheReadTokens > 0 && { cacheReadTokens }),
    ...(cacheWriteTokens > 0 && { cacheWriteTokens }),
    ...(cacheWriteHourTokens > 0 && { cacheWriteHourTokens }),
    // Of `output_tokens` (which stays the count billed), those spent thinking.
    ...(reasoningTokens > 0 && { reasoningTokens }),
  };
}

export function finishEvent(
  stopReason: string | null | undefined,
  stopSequence: string | null | undefined,
  usage: ReportedUsage | null,
): Extract<CanonicalEvent, { type: 'finish' }> {
  const reason = mapStopReason(stopReason);
  return {
    type: 'finish',
    finishReason: reason.unified,
    rawFinishReason: reason.raw,
    stopSequence: reason.unified === 'stop_sequence' ? (stopSequence ?? null) : null,
    usage,
  };
}

/**
 * A thinking block (its text, closed by its signature) or a redacted one (only its encrypted
 * form), sealed for this provider (canonical/reasoning-signature.ts). Its tokens are counted in
 * the usage (`toUsage`).
 */
export function reasoningEvent(block: unknown, providerId: string): CanonicalEvent {
  const redacted = redactedThinkingBlockSchema.safeParse(block);
  if (redacted.success)
    return {
      type: 'reasoning-delta',
      text: '',
      encrypted: sealSignature(providerId, redacted.data.data),
    };
  const thinking = thinkingBlockSchema.safeParse(block);
  if (!thinking.success) throw malformed(providerId);
  const { signature } = thinking.data;
  return {
    type: 'reasoning-delta',
    text: thinking.data.thinking,
    ...(signature && { signature: sealSignature(providerId, signature) }),
  };
}

const malformed = (providerId: string) =>
  new UpstreamError('malformed', providerId, 'The provider’s answer is not a Messages response.');
