/**
 * Canonical events → the Messages form's named server-sent events, written as they arrive:
 * `message_start`, then per content block `content_block_start` / `content_block_delta` /
 * `content_block_stop`, then `message_delta` (stop reason and usage) and `message_stop`. A `ping`
 * goes out after `message_start` and again whenever the provider stays silent for a while, as the
 * vendor does, so idle proxies keep the connection. The state object holds the open block.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */
import type { ServerResponse } from 'node:http';
import type { PipelineEvent, ReportedUsage } from '../../canonical/model';
import { toGatewayError } from '../../errors';
import { startEventStream, writeEvent } from '../../http/respond';
import { messagesErrorBody } from './error-shape';
import { brokenToolArguments, toolArguments, UNFINISHED } from '../tool-arguments';
import { messageId, toMessagesPromptUsage, toMessagesUsage } from './canonical-to-response';
import { toStopReason } from './canonical-to-stop-reason';

type StreamState = {
  /** Index of the next content block. */
  nextIndex: number;
  /** The text block still open, if any: text deltas keep appending to it. */
  openTextIndex: number | null;
  /** The thinking block still open, if any: until its signature arrives. */
  openThinkingIndex: number | null;
  /**
   * A tool call whose arguments begin an object and stop short, held until the next event: only a
   * finish at max_tokens makes it a cut call, anything else a broken one.
   */
  cutCall: ToolCall | null;
  /** `message_start` has gone out. */
  started: boolean;
};

type ToolCall = Extract<PipelineEvent, { type: 'tool-call' }>;

export const DEFAULT_PING_INTERVAL_MS = 5_000;

export async function writeMessagesStream(
  response: ServerResponse,
  events: AsyncIterable<PipelineEvent>,
  options: { model: string; traceId: string; promptTokens: number; pingIntervalMs?: number },
): Promise<void> {
  const state: StreamState = {
    nextIndex: 0,
    openTextIndex: null,
    openThinkingIndex: null,
    cutCall: null,
    started: false,
  };
  const send = (name: string, data: object) =>
    writeEvent(response, JSON.stringify({ type: name, ...data }), name);
  const closeThinking = async () => {
    if (state.openThinkingIndex === null) return true;
    const index = state.openThinkingIndex;
    state.openThinkingIndex = null;
    return send('content_block_stop', { index });
  };
  const closeText = async () => {
    await closeThinking();
    if (state.openTextIndex === null) return true;
    const index = state.openTextIndex;
    state.openTextIndex = null;
    return send('content_block_stop', { index });
  };
  /**
   * Reasoning as the vendor streams thinking: a `thinking` block of `thinking_delta`s, closed by
   * its `signature_delta`; an encrypted block whole, as `redacted_thinking`.
   * @see https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#streaming-thinking
   */
  const writeReasoning = async (event: Extract<PipelineEvent, { type: 'reasoning-delta' }>) => {
    if (event.encrypted !== undefined) {
      await closeText();
      const index = state.nextIndex++;
      await send('content_block_start', {
        index,
        content_block: { type: 'redacted_thinking', data: event.encrypted },
      });
      return send('content_block_stop', { index });
    }
    if (state.openThinkingIndex === null) {
      await closeText();
      state.openThinkingIndex = state.nextIndex++;
      await send('content_block_start', {
        index: state.openThinkingIndex,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      });
    }
    const index = state.openThinkingIndex;
    if (event.text !== '')
      await send('content_block_delta', {
        index,
        delta: { type: 'thinking_delta', thinking: event.text },
      });
    if (event.signature === undefined) return true;
    await send('content_block_delta', {
      index,
      delta: { type: 'signature_delta', signature: event.signature },
    });
    return closeThinking();
  };
  /** A `tool_use` block: its arguments go as one `input_json_delta`, as the vendor streams them. */
  const writeToolUse = async (call: ToolCall) => {
    await closeText();
    const index = state.nextIndex++;
    await send('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
    });
    await send('content_block_delta', {
      index,
      delta: { type: 'input_json_delta', partial_json: call.arguments },
    });
    return send('content_block_stop', { index });
  };

  /**
   * `message_start` with the prompt's usage as far as it is known: the provider's, when it told it
   * before the answer (or the answer is only its finish), else the gateway's own count and no cache.
   */
  const start = async (usage: ReportedUsage | null) => {
    state.started = true;
    await send('message_start', {
      message: {
        id: messageId(options.traceId),
        type: 'message',
        role: 'assistant',
        model: options.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          ...toMessagesPromptUsage({
            ...usage,
            promptTokens: usage?.promptTokens ?? options.promptTokens,
          }),
          output_tokens: 0,
        },
      },
    });
    return send('ping', {});
  };

  startEventStream(response);
  const iterator = events[Symbol.asyncIterator]();
  try {
    for await (const event of withPings(
      iterator,
      options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS,
    )) {
      // Held until the first event, which comes at once (the answer has begun when the writer is
      // called) and may be the provider's start usage, so the client's start shows the cache.
      if (!state.started) {
        const told =
          event !== 'ping' && (event.type === 'usage' || event.type === 'finish')
            ? event.usage
            : null;
        if (!(await start(told))) break;
        if (event === 'ping') continue;
      }
      if (event === 'ping') {
        if (!(await send('ping', {}))) break;
        continue;
      }
      if (event.type === 'usage') continue;
      if (state.cutCall && !(event.type === 'finish' && event.finishReason === 'length'))
        throw brokenToolArguments(state.cutCall.name);
      if (event.type === 'text-delta') {
        await closeThinking();
        if (state.openTextIndex === null) {
          state.openTextIndex = state.nextIndex++;
          await send('content_block_start', {
            index: state.openTextIndex,
            content_block: { type: 'text', text: '' },
          });
        }
        if (
          !(await send('content_block_delta', {
            index: state.openTextIndex,
            delta: { type: 'text_delta', text: event.text },
          }))
        )
          break;
      } else if (event.type === 'tool-call') {
        // Arguments that are not an object are refused here, before the block goes out.
        if (toolArguments(event.arguments, event.name) === UNFINISHED) state.cutCall = event;
        else if (!(await writeToolUse(event))) break;
      } else if (event.type === 'reasoning-delta') {
        if (!(await writeReasoning(event))) break;
      } else {
        // A call cut short by max_tokens goes out as the vendor's own stream sends one: its partial
        // JSON in `input_json_delta` (the vendor's clients build the input from it as far as it
        // goes), then stop_reason max_tokens, which says it was cut. The plain answer, which has
        // no way to carry partial JSON, leaves such a call out (canonical-to-response.ts).
        if (state.cutCall) await writeToolUse(state.cutCall);
        await closeText();
        // The counts are the whole answer's, as the vendor's are: its clients let each one given
        // replace the one `message_start` told.
        await send('message_delta', {
          delta: {
            stop_reason: toStopReason(event.finishReason),
            stop_sequence: event.stopSequence,
          },
          usage: toMessagesUsage(event),
        });
        await send('message_stop', {});
      }
    }
  } catch (error) {
    // Headers are gone already: the error travels as the vendor's `error` event, after the start
    // every stream of the vendor's has.
    if (!state.started) await start(null);
    await writeEvent(
      response,
      JSON.stringify(messagesErrorBody(toGatewayError(error), options.traceId)),
      'error',
    );
  } finally {
    response.end();
    // Ends the pipeline's run (releasing its reservation) if the client left before the end.
    await iterator.return?.(undefined)?.catch(() => undefined);
  }
}

/**
 * The events, with `'ping'` in between whenever the next one takes longer than `intervalMs`.
 * It never asks the iterator for more than one event at a time.
 */
async function* withPings<T>(
  iterator: AsyncIterator<T>,
  intervalMs: number,
): AsyncGenerator<T | 'ping'> {
  let next = iterator.next();
  // A rejection is seen by the race below; this only keeps an abandoned one from going unhandled.
  next.catch(() => undefined);
  while (true) {
    let timer: NodeJS.Timeout | undefined;
    const tick = new Promise<'ping'>((resolve) => {
      timer = setTimeout(() => resolve('ping'), intervalMs);
    });
    const result = await Promise.race([next, tick]).finally(() => clearTimeout(timer));
    if (result === 'ping') {
      yield 'ping';
      continue;
    }
    if (result.done) return;
    yield result.value;
    next = iterator.next();
    next.catch(() => undefined);
  }
}
