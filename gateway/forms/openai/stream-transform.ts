/**
 * Canonical events → chat-completion chunks, written as they arrive. The state object keeps the
 * few things a chunk needs from earlier ones (the tool call index). Usage rides on the last
 * chunk: when the client asks for `stream_options.include_usage`, exactly as the vendor does (a
 * final chunk with empty `choices`); otherwise on the chunk that carries `finish_reason`.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming
 */
import type { ServerResponse } from 'node:http';
import type { PipelineEvent } from '../../canonical/model';
import type { GatewayError } from '../../errors';
import { startEventStream, writeEvent } from '../../http/respond';
import { toChatFinishReason } from './finish-reason';
import { completionId, toChatUsage } from './response-converter';

type StreamState = { toolCallIndex: number };

export async function writeChatCompletionStream(
  response: ServerResponse,
  events: AsyncIterable<PipelineEvent>,
  options: { model: string; traceId: string; created: number; includeUsage: boolean },
  errorBody: (error: GatewayError) => unknown,
  toGatewayError: (error: unknown) => GatewayError,
): Promise<void> {
  const base = { id: completionId(options.traceId), object: 'chat.completion.chunk', created: options.created, model: options.model };
  const chunk = (delta: object, finishReason: string | null = null, extra: object = {}) =>
    JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], ...extra });
  const state: StreamState = { toolCallIndex: 0 };

  startEventStream(response);
  writeEvent(response, chunk({ role: 'assistant', content: '' }));
  try {
    for await (const event of events) {
      if (event.type === 'text-delta') {
        if (!writeEvent(response, chunk({ content: event.text }))) break;
      } else if (event.type === 'tool-call') {
        const call = { index: state.toolCallIndex, id: event.id, type: 'function', function: { name: event.name, arguments: event.arguments } };
        state.toolCallIndex += 1;
        if (!writeEvent(response, chunk({ tool_calls: [call] }))) break;
      } else {
        const usage = toChatUsage(event);
        const finishReason = toChatFinishReason(event.finishReason);
        if (options.includeUsage) {
          writeEvent(response, chunk({}, finishReason, { usage: null }));
          writeEvent(response, JSON.stringify({ ...base, choices: [], usage }));
        } else {
          writeEvent(response, chunk({}, finishReason, { usage }));
        }
        writeEvent(response, '[DONE]');
      }
    }
  } catch (error) {
    // Headers are gone already: the error travels as a stream event, in the form's error shape.
    writeEvent(response, JSON.stringify(errorBody(toGatewayError(error))));
  } finally {
    response.end();
  }
}
