/**
 * A whole chat completion → canonical events: the text (and a refusal, with log probabilities when
 * the upstream sent them), the tool calls, then `finish`. Only the first choice is read: the
 * gateway answers with one (`n` > 1 is refused before the request goes upstream).
 * @see https://platform.openai.com/docs/api-reference/chat/object
 */
import type { CanonicalEvent, ReportedUsage } from '../../canonical/model';
import { UpstreamError } from '../upstream-error';
import { mapFinishReason } from './finish-reason-to-canonical';
import { chatCompletionSchema, type WireUsage } from './wire-schema';

export function fromChatCompletion(body: unknown, providerId: string): CanonicalEvent[] {
  const parsed = chatCompletionSchema.safeParse(body);
  if (!parsed.success) {
    throw new UpstreamError(
      'malformed',
      providerId,
      'The provider’s answer is not a chat completion the gateway can read.',
    );
  }
  const [choice] = parsed.data.choices;
  const events: CanonicalEvent[] = [];
  const reasoning = reasoningOf(choice!.message);
  if (reasoning !== '') events.push({ type: 'reasoning-delta', text: reasoning });
  const text = choice!.message.content ?? '';
  const logprobs = logprobsOf(choice!.logprobs);
  if (text !== '' || logprobs.content)
    events.push({
      type: 'text-delta',
      text,
      ...(logprobs.content && { logprobs: logprobs.content }),
    });
  const refusal = choice!.message.refusal;
  if (typeof refusal === 'string' && refusal !== '')
    events.push({
      type: 'text-delta',
      text: refusal,
      channel: 'refusal',
      ...(logprobs.refusal && { logprobs: logprobs.refusal }),
    });
  (choice!.message.tool_calls ?? []).forEach((call, index) => {
    events.push({
      type: 'tool-call',
      id: call.id || fallbackCallId(index),
      name: call.function.name,
      arguments: call.function.arguments ?? '',
    });
  });
  const finish = mapFinishReason(choice!.finish_reason);
  events.push({
    type: 'finish',
    finishReason: finish.unified,
    rawFinishReason: finish.raw,
    stopSequence: null,
    usage: toUsage(parsed.data.usage),
  });
  return events;
}

export const toUsage = (usage: WireUsage): ReportedUsage | null =>
  usage
    ? {
        promptTokens: usage.prompt_tokens ?? null,
        completionTokens: usage.completion_tokens ?? null,
        ...(usage.prompt_tokens_details?.cached_tokens && {
          cacheReadTokens: usage.prompt_tokens_details.cached_tokens,
        }),
        // @see https://openrouter.ai/docs/use-cases/usage-accounting
        ...(usage.prompt_tokens_details?.cache_write_tokens && {
          cacheWriteTokens: usage.prompt_tokens_details.cache_write_tokens,
        }),
        ...(usage.completion_tokens_details?.reasoning_tokens && {
          reasoningTokens: usage.completion_tokens_details.reasoning_tokens,
        }),
      }
    : null;

/** A message's or delta's reasoning text, in whichever field the server used ('' for none). */
export const reasoningOf = (message: {
  reasoning_content?: string | null;
  reasoning?: string | null;
}) => message.reasoning_content || message.reasoning || '';

/** Some local servers leave a call's id out; a canonical call needs one to pair its result with. */
export const fallbackCallId = (index: number) => `call_${index}`;

/** A choice's `logprobs` (`{ content, refusal }`, each a list or null), kept raw. */
export function logprobsOf(value: unknown): { content?: unknown[]; refusal?: unknown[] } {
  if (value === null || typeof value !== 'object') return {};
  const { content, refusal } = value as { content?: unknown; refusal?: unknown };
  return {
    ...(Array.isArray(content) && content.length > 0 && { content }),
    ...(Array.isArray(refusal) && refusal.length > 0 && { refusal }),
  };
}
