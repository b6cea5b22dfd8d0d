/** The Responses form as one object (see public-form.ts). */
import { invalidRequest } from '../../errors';
import { chatErrorBody } from '../openai/error-shape';
import type { PipelineEvent } from '../../canonical/model';
import { unmappedFields, type AnswerMeta, type PublicForm } from '../public-form';
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
    const { unmapped, ...canonical } = toCanonicalRequest(parsed);
    return {
      ...canonical,
      inbound: {
        form: 'responses',
        body: parsed,
        unmappedFields: [...unmappedFields(parsed, MAPPED), ...unmapped],
      },
    };
  },
  toResponse: (answer, meta) => toResponseObject(answer, meta, kindsOf(meta.request.inbound?.body)),
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
  return writeResponsesStream(
    sink,
    events,
    meta,
    kindsOf(meta.request.inbound?.body),
    async (finished) => meta.keep?.(finished),
  );
}
