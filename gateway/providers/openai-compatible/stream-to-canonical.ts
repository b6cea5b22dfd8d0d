/**
 * A chat-completions stream → canonical events. Text goes out as soon as it arrives. Tool calls
 * come in fragments (the first names the call, the rest append to its arguments) and go out whole,
 * once the next call starts or the choice finishes. `finish` waits for the end of the stream,
 * because the usage comes after the finish chunk when `include_usage` is on.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 * @see https://platform.openai.com/docs/guides/function-calling#streaming
 */
import type { CanonicalEvent, ReportedUsage } from '../../canonical/model';
import type { UpstreamSseEvent } from '../upstream/adapter';
import { finalUsage } from '../upstream/reported-count';
import { UpstreamError } from '../upstream-error';
import { inBandError } from './error-mapping';
import { mapFinishReason } from './finish-reason-to-canonical';
import { fallbackCallId, logprobsOf, reasoningOf, toUsage } from './response-to-canonical';
import {
  chatCompletionChunkSchema,
  inBandErrorChunkSchema,
  type ChatCompletionChunk,
} from './wire-schema';

type ToolCallFragment = NonNullable<
  NonNullable<NonNullable<ChatCompletionChunk['choices']>[number]['delta']>['tool_calls']
>[number];

type ToolCallEvent = Extract<CanonicalEvent, { type: 'tool-call' }>;

export type OpenAiStreamState = {
  /** Tool calls still gathering argument fragments, by the server's `index`. */
  openToolCalls: Map<number, Omit<ToolCallEvent, 'type'>>;
  /** Tool calls emitted so far, to number the ones a server sends without an id. */
  toolCallsEmitted: number;
  /** The first choice's `finish_reason`, once a chunk has said it. */
  finishReason: string | null;
  /** The latest usage reported; null until (unless) one arrives. */
  usage: ReportedUsage | null;
  /** Output arrived after the latest usage: its completion count is a running one, not final. */
  outputSinceUsage: boolean;
  /** `data: [DONE]` arrived: the stream is over, whatever follows. */
  done: boolean;
};

export const createStreamState = (): OpenAiStreamState => ({
  openToolCalls: new Map(),
  toolCallsEmitted: 0,
  finishReason: null,
  usage: null,
  outputSinceUsage: false,
  done: false,
});

export function transformStreamEvent(
  state: OpenAiStreamState,
  event: UpstreamSseEvent,
  providerId: string,
): CanonicalEvent[] {
  const data = event.data.trim();
  if (data === '' || state.done) return [];
  if (data === '[DONE]') {
    state.done = true;
    return flushToolCalls(state, providerId);
  }
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new UpstreamError(
      'malformed',
      providerId,
      'The provider sent a stream chunk that is not JSON.',
    );
  }
  const failure = inBandErrorChunkSchema.safeParse(json);
  if (failure.success) throw inBandError(failure.data.error, providerId);
  const chunk = chatCompletionChunkSchema.safeParse(json);
  if (!chunk.success) {
    throw new UpstreamError(
      'malformed',
      providerId,
      'The provider sent a stream chunk the gateway cannot read.',
    );
  }

  // The include_usage chunk (empty `choices`) or, on some servers, the finish chunk itself.
  if (chunk.data.usage) {
    state.usage = toUsage(chunk.data.usage);
    state.outputSinceUsage = false;
  } else if (carriesOutput(chunk.data)) state.outputSinceUsage = true;
  const events: CanonicalEvent[] = [];
  for (const choice of chunk.data.choices ?? []) {
    // Only the first choice is answered (`n` > 1 is refused before the request goes upstream).
    if ((choice.index ?? 0) !== 0) continue;
    const reasoning = choice.delta ? reasoningOf(choice.delta) : '';
    if (reasoning !== '') events.push({ type: 'reasoning-delta', text: reasoning });
    const text = choice.delta?.content;
    const logprobs = logprobsOf(choice.logprobs);
    if (text || logprobs.content)
      events.push({
        type: 'text-delta',
        text: text ?? '',
        ...(logprobs.content && { logprobs: logprobs.content }),
      });
    const refusal = choice.delta?.refusal;
    if (typeof refusal === 'string' && (refusal !== '' || logprobs.refusal))
      events.push({
        type: 'text-delta',
        text: refusal,
        channel: 'refusal',
        ...(logprobs.refusal && { logprobs: logprobs.refusal }),
      });
    (choice.delta?.tool_calls ?? []).forEach((fragment, position) => {
      events.push(...addFragment(state, fragment, position, providerId));
    });
    if (choice.finish_reason) {
      state.finishReason = choice.finish_reason;
      events.push(...flushToolCalls(state, providerId));
    }
  }
  return events;
}

/** What the stream has reported so far (OpenAI sends its usage last, with `include_usage`). */
export const openAiUsageSoFar = (state: OpenAiStreamState) => state.usage;

export function finishStream(state: OpenAiStreamState, providerId: string): CanonicalEvent[] {
  // Either end marker will do: some servers send no `[DONE]`, a few no `finish_reason`.
  if (state.finishReason === null && !state.done) {
    throw new UpstreamError(
      'cut',
      providerId,
      'The provider’s stream ended before the answer did.',
    );
  }
  const finish = mapFinishReason(state.finishReason);
  return [
    ...flushToolCalls(state, providerId),
    {
      type: 'finish',
      finishReason: finish.unified,
      rawFinishReason: finish.raw,
      stopSequence: null,
      usage: finalUsage(state.usage, state.outputSinceUsage),
    },
  ];
}

const carriesOutput = (chunk: ChatCompletionChunk) =>
  (chunk.choices ?? []).some(
    ({ delta }) =>
      Boolean(delta?.content) || Boolean(delta?.refusal) || (delta?.tool_calls?.length ?? 0) > 0,
  );

/**
 * One fragment of a tool call. A fragment that starts a call (a new index, or a new id at an index
 * in use, as servers that send each call whole and unindexed do) completes the calls before it.
 */
function addFragment(
  state: OpenAiStreamState,
  fragment: ToolCallFragment,
  position: number,
  providerId: string,
): CanonicalEvent[] {
  const index = fragment.index ?? position;
  const open = state.openToolCalls.get(index);
  const name = fragment.function?.name ?? '';
  const fragmentArguments = fragment.function?.arguments ?? '';
  if (open && !(fragment.id && open.id && fragment.id !== open.id)) {
    open.arguments += fragmentArguments;
    if (!open.name) open.name = name;
    if (!open.id) open.id = fragment.id ?? '';
    return [];
  }
  const completed = flushToolCalls(state, providerId, index + 1);
  state.openToolCalls.set(index, { id: fragment.id ?? '', name, arguments: fragmentArguments });
  return completed;
}

/** Emits the open tool calls below `below` (all by default), in index order. */
function flushToolCalls(
  state: OpenAiStreamState,
  providerId: string,
  below = Number.POSITIVE_INFINITY,
): ToolCallEvent[] {
  const indexes = [...state.openToolCalls.keys()]
    .filter((index) => index < below)
    .sort((a, b) => a - b);
  return indexes.map((index) => {
    const call = state.openToolCalls.get(index)!;
    state.openToolCalls.delete(index);
    if (!call.name) {
      throw new UpstreamError(
        'malformed',
        providerId,
        'The provider sent a tool call without a name.',
      );
    }
    return {
      type: 'tool-call',
      id: call.id || fallbackCallId(state.toolCallsEmitted++),
      name: call.name,
      arguments: call.arguments,
    };
  });
}
