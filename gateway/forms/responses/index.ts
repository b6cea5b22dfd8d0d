/** The Responses form as one object (see public-form.ts). */
import { invalidRequest } from '../../errors';
import { chatErrorBody } from '../openai/error-shape';
import type { CanonicalRequest, PipelineEvent } from '../../canonical/model';
import { unmappedFields, type AnswerMeta, type PublicForm } from '../public-form';
import { bodyRouting, withoutRouting } from '../request-routing';
import { parseBody } from '../validation';
import { toCanonicalRequest } from './request-to-canonical';
import { responsesRequestSchema, type ResponsesRequest } from './request-schema';
import {
  eventStreamSink,
  writeResponsesStream,
  type ResponsesEventSink,
} from './canonical-to-stream';
import { toResponseObject } from './canonical-to-response';
import { toolKinds } from './tool-names';
import {
  compactionBody,
  isCompaction,
  markCompaction,
  toCompactionResponse,
  writeCompactionStream,
} from './compaction';

/**
 * The fields the canonical request carries, and those that change nothing about the answer
 * (storage, caching hints, metadata, what the answer includes). Anything else reaches an upstream
 * of this form only.
 */
const MAPPED = new Set([
  'model',
  'input',
  'instructions',
  'max_output_tokens',
  'temperature',
  'top_p',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'reasoning',
  'text',
  'store',
  'previous_response_id',
  'include',
  'stream',
  'stream_options',
  'background',
  'metadata',
  'user',
  'prompt_cache_key',
  'safety_identifier',
  'truncation',
  'client_metadata',
  'provider',
  'models',
]);

const kindsOf = (body: unknown) => toolKinds((body as ResponsesRequest | undefined)?.tools);

export const responsesForm: PublicForm = {
  name: 'responses',
  auth: 'chat_completions',
  toCanonical(body) {
    const parsed = parseBody(responsesRequestSchema, body);
    if (parsed.background) {
      throw invalidRequest(
        "Invalid field 'background': this gateway answers in the request (or its stream); send background false or leave it out.",
      );
    }
    // A compaction asks the model for the summary in place of the trigger, upstreams of this form
    // included: the gateway seals the summary itself (compaction.ts).
    const compaction = compactionBody(parsed);
    const asked = compaction ?? parsed;
    const { unmapped, ...canonical } = toCanonicalRequest(asked);
    const request: CanonicalRequest = {
      ...canonical,
      ...bodyRouting(parsed),
      inbound: {
        form: 'responses',
        body: withoutRouting(asked),
        unmappedFields: [...unmappedFields(asked, MAPPED), ...unmapped],
      },
    };
    if (compaction) markCompaction(request);
    return request;
  },
  toResponse: (answer, meta) =>
    isCompaction(meta.request)
      ? toCompactionResponse(answer, meta)
      : toResponseObject(answer, meta, kindsOf(meta.request.inbound?.body)),
  writeStream: (response, events, meta) =>
    writeResponsesEvents(eventStreamSink(response), events, meta),
  errorBody: chatErrorBody,
};

/** The Responses form's event stream into any sink (the WebSocket route's frames too). */
export function writeResponsesEvents(
  sink: ResponsesEventSink,
  events: AsyncIterable<PipelineEvent>,
  meta: AnswerMeta,
): Promise<void> {
  const keep = async (finished: unknown) => meta.keep?.(finished);
  if (isCompaction(meta.request)) return writeCompactionStream(sink, events, meta, keep);
  return writeResponsesStream(sink, events, meta, kindsOf(meta.request.inbound?.body), keep);
}
