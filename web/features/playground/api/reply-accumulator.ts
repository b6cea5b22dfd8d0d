/**
 * Builds one assistant reply out of chat-completion chunks: text deltas appended, tool-call
 * fragments joined by their `index`, the finish reason and usage taken from whichever chunk
 * carries them. The state is explicit and replaced, never mutated, so React sees each step.
 */
import type { ChatCompletion, ChatCompletionChunk } from '../../../../contract/gateway';
import type { RunUsage, ToolCall } from '../playground-types';

export interface ReplyState {
  text: string;
  /** The reasoning text streamed before (or beside) the answer. */
  reasoning: string;
  toolCalls: ToolCall[];
  finishReason: string | null;
  usage: RunUsage | null;
  /** True once a chunk carried text or a tool call: the moment of the first token. */
  started: boolean;
}

export const emptyReply: ReplyState = {
  text: '',
  reasoning: '',
  toolCalls: [],
  finishReason: null,
  usage: null,
  started: false,
};

function toUsage(usage: ChatCompletionChunk['usage']): RunUsage | null {
  if (!usage) return null;
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens,
    ...(typeof usage.cost === 'number' ? { cost: usage.cost } : {}),
    ...(typeof usage.completion_tokens_details?.reasoning_tokens === 'number'
      ? { reasoning_tokens: usage.completion_tokens_details.reasoning_tokens }
      : {}),
  };
}

/** Applies one chunk. Only the first choice is read: the playground asks for one. */
export function applyChunk(state: ReplyState, chunk: ChatCompletionChunk): ReplyState {
  let next = state;
  const usage = toUsage(chunk.usage);
  if (usage) next = { ...next, usage };
  const choice = chunk.choices.find((candidate) => candidate.index === 0) ?? chunk.choices[0];
  if (!choice) return next;

  const content = choice.delta.content;
  if (typeof content === 'string' && content !== '') {
    next = { ...next, text: next.text + content, started: true };
  }
  const reasoning = choice.delta.reasoning;
  if (typeof reasoning === 'string' && reasoning !== '') {
    next = { ...next, reasoning: next.reasoning + reasoning, started: true };
  }
  for (const fragment of choice.delta.tool_calls ?? []) {
    const toolCalls = next.toolCalls.slice();
    const existing = toolCalls[fragment.index];
    toolCalls[fragment.index] = {
      id: fragment.id ?? existing?.id ?? `call_${fragment.index}`,
      type: 'function',
      function: {
        name: (existing?.function.name ?? '') + (fragment.function?.name ?? ''),
        arguments: (existing?.function.arguments ?? '') + (fragment.function?.arguments ?? ''),
      },
    };
    next = { ...next, toolCalls, started: true };
  }
  if (choice.finish_reason) next = { ...next, finishReason: choice.finish_reason };
  return next;
}

/** The same state from a whole (non-streamed) chat completion. */
export function replyFromCompletion(completion: ChatCompletion): ReplyState {
  const choice = completion.choices[0];
  return {
    text: choice?.message.content ?? '',
    reasoning: choice?.message.reasoning ?? '',
    toolCalls: (choice?.message.tool_calls ?? []).map((call) => ({
      id: call.id,
      type: 'function' as const,
      function: { name: call.function.name, arguments: call.function.arguments },
    })),
    finishReason: choice?.finish_reason ?? null,
    usage: toUsage(completion.usage),
    started: true,
  };
}
