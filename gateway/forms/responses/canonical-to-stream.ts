/**
 * Canonical events → the Responses form's event stream, with `sequence_number` on every event.
 * The state object holds the item being written (a message, or a reasoning summary) and the
 * items done so far; a tool call arrives whole and goes out as added, arguments delta and done.
 * An error after the start ends the stream with `response.failed`, never a clean-looking end.
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
import type { ServerResponse } from 'node:http';
import type { PipelineEvent, PricedFinish } from '../../canonical/model';
import { toGatewayError } from '../../errors';
import { startEventStream, writeEvent } from '../../http/respond';
import type { AnswerMeta } from '../public-form';
import {
  callItem,
  includesEncryptedReasoning,
  itemId,
  messageItem,
  outputText,
  reasoningItem,
  responseShell,
  responsesUsage,
  statusOf,
  type OutputItem,
  type ResponseObject,
} from './canonical-to-response';
import type { ToolKinds } from './tool-names';

/** The vendor's codes for a failed response, by the gateway error's status. */
const failureCode = (status: number) =>
  status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request';

type Send = (type: string, fields: object) => Promise<boolean>;

/** The finished response kept, then announced completed (or incomplete). */
export async function finish(
  send: Send,
  shell: ResponseObject,
  output: OutputItem[],
  event: PricedFinish,
  keep: (finished: ResponseObject) => Promise<void>,
): Promise<void> {
  const outcome = statusOf(event.finishReason);
  const finished: ResponseObject = { ...shell, ...outcome, output, usage: responsesUsage(event) };
  await keep(finished);
  await send(outcome.status === 'completed' ? 'response.completed' : 'response.incomplete', {
    response: finished,
  });
}

/**
 * Headers are gone already: the response fails in the form's own way, which the vendor's
 * clients read as the request having failed, with the gateway's message.
 */
export async function fail(
  send: Send,
  shell: ResponseObject,
  output: OutputItem[],
  thrown: unknown,
): Promise<void> {
  const error = toGatewayError(thrown);
  await send('response.failed', {
    response: {
      ...shell,
      status: 'failed',
      output,
      error: { code: failureCode(error.status), message: error.message },
    },
  });
}

type Open =
  | { kind: 'message'; id: string; text: string }
  | { kind: 'reasoning'; id: string; text: string; signature?: string; encrypted?: string };

type StreamState = { sequence: number; output: OutputItem[]; open: Open | null };

/**
 * Where the events go: server-sent events on an HTTP answer, or one JSON text frame each on a
 * WebSocket (routes/responses-socket.ts). The same event objects either way.
 */
export type ResponsesEventSink = {
  start(): void;
  /** Sends one event; resolves false once the client is gone. */
  send(type: string, data: string): Promise<boolean>;
  end(): void;
};

/** The server-sent events sink of an HTTP answer. */
export function eventStreamSink(response: ServerResponse): ResponsesEventSink {
  return {
    start: () => startEventStream(response),
    send: (type, data) => writeEvent(response, data, type),
    end: () => response.end(),
  };
}

export async function writeResponsesStream(
  sink: ResponsesEventSink,
  events: AsyncIterable<PipelineEvent>,
  meta: AnswerMeta,
  kinds: ToolKinds,
  /** Keeps the finished response (stored responses) before the client is told it finished. */
  keep: (finished: ResponseObject) => Promise<void>,
): Promise<void> {
  const state: StreamState = { sequence: 0, output: [], open: null };
  const shell = responseShell(meta);
  const includeEncrypted = includesEncryptedReasoning(meta);
  const send = (type: string, fields: object) =>
    sink.send(type, JSON.stringify({ type, sequence_number: state.sequence++, ...fields }));
  const outputIndex = () => state.output.length;

  /** Closes the item being written, with its done events. */
  const close = async () => {
    const open = state.open;
    if (!open) return true;
    state.open = null;
    const at = outputIndex();
    if (open.kind === 'message') {
      const place = { item_id: open.id, output_index: at, content_index: 0 };
      await send('response.output_text.done', { ...place, text: open.text, logprobs: [] });
      await send('response.content_part.done', { ...place, part: outputText(open.text) });
      const item = messageItem(open.id, open.text, 'completed');
      state.output.push(item);
      return send('response.output_item.done', { output_index: at, item });
    }
    const place = { item_id: open.id, output_index: at, summary_index: 0 };
    const item = reasoningItem(open.id, open, includeEncrypted, meta.keyId);
    if (open.text !== '') {
      await send('response.reasoning_summary_text.done', { ...place, text: open.text });
      await send('response.reasoning_summary_part.done', {
        ...place,
        part: { type: 'summary_text', text: open.text },
      });
    }
    state.output.push(item);
    return send('response.output_item.done', { output_index: at, item });
  };

  sink.start();
  const iterator = events[Symbol.asyncIterator]();
  try {
    await send('response.created', { response: shell });
    await send('response.in_progress', { response: shell });
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      const event = next.value;
      // Its usage is told with the finish, which says all of it.
      if (event.type === 'usage') continue;
      if (event.type === 'text-delta') {
        if (state.open?.kind !== 'message') {
          await close();
          const id = itemId('msg', meta.traceId, outputIndex());
          state.open = { kind: 'message', id, text: '' };
          await send('response.output_item.added', {
            output_index: outputIndex(),
            item: messageItem(id, '', 'in_progress'),
          });
          await send('response.content_part.added', {
            item_id: id,
            output_index: outputIndex(),
            content_index: 0,
            part: outputText(''),
          });
        }
        state.open.text += event.text;
        const delta = {
          item_id: state.open.id,
          output_index: outputIndex(),
          content_index: 0,
          delta: event.text,
          logprobs: [],
        };
        if (!(await send('response.output_text.delta', delta))) break;
      } else if (event.type === 'reasoning-delta') {
        if (state.open?.kind !== 'reasoning') {
          await close();
          const id = itemId('rs', meta.traceId, outputIndex());
          state.open = { kind: 'reasoning', id, text: '' };
          await send('response.output_item.added', {
            output_index: outputIndex(),
            item: { id, type: 'reasoning', summary: [] },
          });
        }
        const open = state.open;
        const place = { item_id: open.id, output_index: outputIndex(), summary_index: 0 };
        if (event.text !== '') {
          if (open.text === '')
            await send('response.reasoning_summary_part.added', {
              ...place,
              part: { type: 'summary_text', text: '' },
            });
          open.text += event.text;
          if (
            !(await send('response.reasoning_summary_text.delta', { ...place, delta: event.text }))
          )
            break;
        }
        if (event.signature !== undefined || event.encrypted !== undefined) {
          open.signature = event.signature;
          open.encrypted = event.encrypted;
          if (!(await close())) break;
        }
      } else if (event.type === 'tool-call') {
        await close();
        const prefix = kinds.custom.has(event.name) ? 'ctc' : 'fc';
        const id = itemId(prefix, meta.traceId, outputIndex());
        const at = outputIndex();
        await send('response.output_item.added', {
          output_index: at,
          item: callItem(id, event, kinds, 'in_progress'),
        });
        const done = callItem(id, event, kinds, 'completed');
        if (done.type === 'custom_tool_call') {
          await send('response.custom_tool_call_input.delta', {
            item_id: id,
            output_index: at,
            delta: done.input,
          });
          await send('response.custom_tool_call_input.done', {
            item_id: id,
            output_index: at,
            input: done.input,
          });
        } else {
          const place = { item_id: id, output_index: at };
          await send('response.function_call_arguments.delta', { ...place, delta: done.arguments });
          await send('response.function_call_arguments.done', {
            ...place,
            name: done.name,
            arguments: done.arguments,
          });
        }
        state.output.push(done);
        if (!(await send('response.output_item.done', { output_index: at, item: done }))) break;
      } else {
        await close();
        await finish(send, shell, state.output, event, keep);
      }
    }
  } catch (thrown) {
    await fail(send, shell, state.output, thrown);
  } finally {
    sink.end();
    // Ends the pipeline's run (releasing its reservation) if the client left before the end.
    await iterator.return?.(undefined)?.catch(() => undefined);
  }
}
