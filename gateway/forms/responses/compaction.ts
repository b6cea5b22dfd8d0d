/**
 * Compaction in the Responses form, as Codex asks for it: a `compaction_trigger` item at the end
 * of the input (on `POST /v1/responses`, or its WebSocket), or `POST /v1/responses/compact`. The
 * answer is one `compaction` item whose `encrypted_content` carries the conversation's summary.
 * The gateway asks the model for that summary itself with one ordinary request (charged and
 * recorded as any other) and seals it (canonical/compaction-envelope.ts); the item coming back
 * in a later input is opened into the summary the model sees (request-to-canonical.ts).
 */
import { sealCompaction } from '../../canonical/compaction-envelope';
import type { CanonicalRequest, CanonicalResponse, PipelineEvent } from '../../canonical/model';
import { GatewayError, invalidRequest } from '../../errors';
import type { AnswerMeta } from '../public-form';
import {
  responseShell,
  responsesUsage,
  statusOf,
  type OutputItem,
  type ResponseObject,
} from './canonical-to-response';
import { fail, finish, type ResponsesEventSink } from './canonical-to-stream';
import type { ResponsesRequest } from './request-schema';

/** What the model is asked in place of the trigger. */
export const SUMMARY_REQUEST =
  'Write a summary of this conversation that will replace it: continuing the work must be possible from the summary alone. ' +
  'Give the goals and instructions of the user, what has been done (files, commands, their results), the decisions made and why, ' +
  'what remains to be done, and every exact value still needed (names, paths, identifiers). Answer with the summary only.';

/**
 * The inbound bodies that ask for a compaction, so the answer is written as one. The body, not
 * the canonical request: later steps copy the request, and keep its inbound body as it is.
 */
const compactions = new WeakSet<object>();

export const markCompaction = (request: CanonicalRequest) => {
  if (request.inbound) compactions.add(request.inbound.body);
};
export const isCompaction = (request: CanonicalRequest) =>
  request.inbound !== undefined && compactions.has(request.inbound.body);

/**
 * The body with its `compaction_trigger` replaced by the summary request, or null when it has
 * none. The model is told not to call tools: a summary is all that is wanted.
 */
export function compactionBody(body: ResponsesRequest): ResponsesRequest | null {
  if (typeof body.input === 'string' || body.input === undefined) return null;
  const items = body.input as Array<{ type?: unknown }>;
  const at = items.findIndex((item) => item.type === 'compaction_trigger');
  if (at === -1) return null;
  if (at !== items.length - 1)
    throw invalidRequest(
      `Invalid field 'input.${at}': a compaction_trigger item must be the last input item.`,
    );
  return {
    ...body,
    input: [
      ...body.input.slice(0, at),
      { role: 'user', content: [{ type: 'input_text', text: SUMMARY_REQUEST }] },
    ] as ResponsesRequest['input'],
    tool_choice: 'none',
  };
}

function compactionItem(meta: AnswerMeta, summary: string): OutputItem {
  return {
    id: `cmp_${meta.traceId.slice(0, 16)}000`,
    type: 'compaction',
    encrypted_content: sealCompaction(summary),
  };
}

const noSummary = () =>
  new GatewayError({
    status: 502,
    type: 'provider_error',
    stage: 'provider',
    message: 'The model gave no summary to compact the conversation into; try again.',
  });

/** The whole answer as a response holding the one `compaction` item. */
export function toCompactionResponse(answer: CanonicalResponse, meta: AnswerMeta): ResponseObject {
  if (answer.text.trim() === '') throw noSummary();
  return {
    ...responseShell(meta),
    ...statusOf(answer.finish.finishReason),
    output: [compactionItem(meta, answer.text)],
    usage: responsesUsage(answer.finish),
  };
}

/**
 * The streamed answer: `response.created`, then, once the summary is whole, the `compaction`
 * item added and done, then `response.completed`. The summary's own deltas are not shown.
 */
export async function writeCompactionStream(
  sink: ResponsesEventSink,
  events: AsyncIterable<PipelineEvent>,
  meta: AnswerMeta,
  keep: (finished: ResponseObject) => Promise<void>,
): Promise<void> {
  let sequence = 0;
  const send = (type: string, fields: object) =>
    sink.send(type, JSON.stringify({ type, sequence_number: sequence++, ...fields }));
  const shell = responseShell(meta);
  let summary = '';
  sink.start();
  const iterator = events[Symbol.asyncIterator]();
  try {
    await send('response.created', { response: shell });
    await send('response.in_progress', { response: shell });
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      const event = next.value;
      if (event.type === 'text-delta' && event.channel !== 'refusal') summary += event.text;
      // Reasoning, or a tool call despite `tool_choice: none`: not part of the summary.
      if (event.type !== 'finish') continue;
      if (summary.trim() === '') throw noSummary();
      const item = compactionItem(meta, summary);
      await send('response.output_item.added', { output_index: 0, item });
      await send('response.output_item.done', { output_index: 0, item });
      await finish(send, shell, [item], event, keep);
    }
  } catch (thrown) {
    await fail(send, shell, [], thrown);
  } finally {
    sink.end();
    await iterator.return?.(undefined)?.catch(() => undefined);
  }
}
