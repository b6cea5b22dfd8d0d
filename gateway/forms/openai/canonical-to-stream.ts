/**
 * Canonical events → chat-completion chunks, written as they arrive. The state object keeps the
 * few things a chunk needs from earlier ones (the tool call index). A refusal goes out as
 * `delta.refusal`, and log probabilities (when the upstream sent them) on their chunk, as the
 * plain answer carries them. Usage rides on the last chunk: when the client asks for
 * `stream_options.include_usage`, exactly as the vendor does (a final chunk with empty
 * `choices`); otherwise on the chunk that carries `finish_reason`.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming
 */
import type { ServerResponse } from 'node:http';
import type { PipelineEvent } from '../../canonical/model';
import { toGatewayError } from '../../errors';
import { startEventStream, writeEvent } from '../../http/respond';
import { chatErrorBody } from './error-shape';
import { toChatFinishReason } from './canonical-to-finish-reason';
import {
  completionId,
  reasoningDetail,
  toChatLogprobs,
  toChatUsage,
} from './canonical-to-response';

type StreamState = {
  toolCallIndex: number;
  /** The reasoning block being written, for `reasoning_details[].index`. */
  reasoningIndex: number;
};

export async function writeChatCompletionStream(
  response: ServerResponse,
  events: AsyncIterable<PipelineEvent>,
  options: { model: string; traceId: string; created: number; includeUsage: boolean },
): Promise<void> {
  const base = {
    id: completionId(options.traceId),
    object: 'chat.completion.chunk',
    created: options.created,
    model: options.model,
  };
  const chunk = (
    delta: object,
    finishReason: string | null = null,
    extra: object = {},
    logprobs: object | null = null,
  ) =>
    JSON.stringify({
      ...base,
      choices: [{ index: 0, delta, logprobs, finish_reason: finishReason }],
      ...extra,
    });
  const state: StreamState = { toolCallIndex: 0, reasoningIndex: 0 };

  startEventStream(response);
  const iterator = events[Symbol.asyncIterator]();
  try {
    await writeEvent(response, chunk({ role: 'assistant', content: '' }));
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      const event = next.value;
      // Its usage is told with the finish, which says all of it.
      if (event.type === 'usage') continue;
      if (event.type === 'text-delta') {
        const refusal = event.channel === 'refusal';
        const logprobs = event.logprobs
          ? toChatLogprobs(
              refusal
                ? { content: [], refusal: event.logprobs }
                : { content: event.logprobs, refusal: [] },
            )
          : null;
        const delta = refusal ? { refusal: event.text } : { content: event.text };
        if (!(await writeEvent(response, chunk(delta, null, {}, logprobs)))) break;
      } else if (event.type === 'tool-call') {
        const call = {
          index: state.toolCallIndex,
          id: event.id,
          type: 'function',
          function: { name: event.name, arguments: event.arguments },
        };
        state.toolCallIndex += 1;
        if (!(await writeEvent(response, chunk({ tool_calls: [call] })))) break;
      } else if (event.type === 'reasoning-delta') {
        // OpenRouter's fields: the text, and the block piece with its signature once it closes.
        const delta = {
          ...(event.text !== '' && { reasoning: event.text }),
          reasoning_details: [reasoningDetail(event, state.reasoningIndex)],
        };
        if (event.signature !== undefined || event.encrypted !== undefined)
          state.reasoningIndex += 1;
        if (!(await writeEvent(response, chunk(delta)))) break;
      } else {
        const usage = toChatUsage(event);
        const finishReason = toChatFinishReason(event.finishReason);
        if (options.includeUsage) {
          await writeEvent(response, chunk({}, finishReason, { usage: null }));
          await writeEvent(response, JSON.stringify({ ...base, choices: [], usage }));
        } else {
          await writeEvent(response, chunk({}, finishReason, { usage }));
        }
        await writeEvent(response, '[DONE]');
      }
    }
  } catch (thrown) {
    // Headers are gone already. The end must not look clean: a last chunk says `error` as its
    // finish reason and carries the error (the vendor's clients raise it), and no [DONE] follows.
    const error = toGatewayError(thrown);
    await writeEvent(
      response,
      chunk({}, 'error', {
        error: streamErrorObject(chatErrorBody(error, options.traceId), error.status),
      }),
    );
  } finally {
    response.end();
    // Ends the pipeline's run (releasing its reservation) if the client left before the end.
    await iterator.return?.(undefined)?.catch(() => undefined);
  }
}

/** The gateway's error body as the `error` object of a chunk: `message` as the vendor names it. */
function streamErrorObject(body: ReturnType<typeof chatErrorBody>, status: number) {
  const { error: message, ...rest } = body;
  return { message, code: status, ...rest };
}
