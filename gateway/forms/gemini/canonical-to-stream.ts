/**
 * Canonical events → `streamGenerateContent` chunks, written as they arrive: one
 * `GenerateContentResponse` per text delta or function call, and a last one with an empty text
 * part, `finishReason` and `usageMetadata`, as the vendor ends its streams. With `?alt=sse` (what
 * the vendor's clients ask for) each chunk is a `data:` event; without it the vendor streams one
 * JSON array, element by element, and so does this.
 * @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
import type { ServerResponse } from 'node:http';
import type { PipelineEvent } from '../../canonical/model';
import { toGatewayError } from '../../errors';
import { startEventStream, startStreamedAnswer, writeChunk, writeEvent } from '../../http/respond';
import { geminiErrorBody } from './error-shape';
import { toGeminiFinishReason } from './canonical-to-finish-reason';
import { brokenToolArguments, toolArguments, UNFINISHED } from '../tool-arguments';
import {
  functionCall,
  responseId,
  signed,
  thoughtParts,
  toUsageMetadata,
} from './canonical-to-response';

export type StreamFraming = 'sse' | 'json_array';

type StreamState = {
  chunksWritten: number;
  /**
   * A call whose arguments begin an object and stop short, held until the next event: a finish at
   * max_tokens makes it a cut call (left out, see canonical-to-response.ts), anything else a broken one.
   */
  cutCall: string | null;
  /** A reasoning signature waiting for the next part to ride on. */
  signature: string | undefined;
  /** The text of the reasoning block being written, sealed with it once it closes. */
  reasoningText: string;
};

export async function writeGeminiStream(
  response: ServerResponse,
  events: AsyncIterable<PipelineEvent>,
  options: { model: string; traceId: string; framing: StreamFraming; keyId?: string },
): Promise<void> {
  const state: StreamState = {
    chunksWritten: 0,
    cutCall: null,
    signature: undefined,
    reasoningText: '',
  };
  /** The waiting signature, taken by the part about to go out. */
  const takeSignature = () => {
    const taken = signed(state.signature);
    state.signature = undefined;
    return taken;
  };
  const base = { modelVersion: options.model, responseId: responseId(options.traceId) };
  const write = (body: object): Promise<boolean> => {
    const text = JSON.stringify(body);
    if (options.framing === 'sse') return writeEvent(response, text);
    const piece = state.chunksWritten === 0 ? `[${text}` : `,\r\n${text}`;
    state.chunksWritten += 1;
    return writeChunk(response, piece);
  };
  const candidate = (parts: object[], extra: object = {}) => ({
    candidates: [{ content: { parts, role: 'model' }, ...extra, index: 0 }],
    ...base,
  });

  if (options.framing === 'sse') startEventStream(response);
  else startStreamedAnswer(response, 'application/json; charset=utf-8');
  const iterator = events[Symbol.asyncIterator]();
  try {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      const event = next.value;
      // Its usage is told with the finish, which says all of it.
      if (event.type === 'usage') continue;
      if (state.cutCall !== null && !(event.type === 'finish' && event.finishReason === 'length'))
        throw brokenToolArguments(state.cutCall);
      if (event.type === 'text-delta') {
        if (!(await write(candidate([{ text: event.text, ...takeSignature() }])))) break;
      } else if (event.type === 'tool-call') {
        const args = toolArguments(event.arguments, event.name);
        if (args === UNFINISHED) state.cutCall = event.name;
        else if (
          !(await write(
            candidate([{ functionCall: functionCall(event, args), ...takeSignature() }]),
          ))
        )
          break;
      } else if (event.type === 'reasoning-delta') {
        state.reasoningText += event.text;
        const thought = thoughtParts(event, state.signature, state.reasoningText, options.keyId);
        if (thought.pending !== undefined) state.reasoningText = '';
        state.signature = thought.pending;
        if (thought.parts.length > 0 && !(await write(candidate(thought.parts)))) break;
      } else {
        await write({
          ...candidate([{ text: '', ...takeSignature() }], {
            finishReason: toGeminiFinishReason(event.finishReason),
          }),
          usageMetadata: toUsageMetadata(event),
        });
      }
    }
  } catch (error) {
    // Headers are gone already: the error travels as one more chunk, in the form's error shape.
    await write(geminiErrorBody(toGatewayError(error), options.traceId));
  } finally {
    if (options.framing === 'json_array' && !response.destroyed && !response.writableEnded) {
      response.write(state.chunksWritten === 0 ? '[]' : ']');
    }
    response.end();
    // Ends the pipeline's run (releasing its reservation) if the client left before the end.
    await iterator.return?.(undefined)?.catch(() => undefined);
  }
}
