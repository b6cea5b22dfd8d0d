/** The Messages form (vendor A) as one object (see public-form.ts). */
import { unmappedFields, type PublicForm } from '../public-form';
import { objectArgumentsCheck } from '../tool-arguments';
import { parseBody } from '../validation';
import { messagesErrorBody } from './error-shape';
import { toCanonicalRequest } from './request-converter';
import { messagesRequestSchema } from './request-schema';
import { toMessagesResponse } from './response-converter';
import { writeMessagesStream } from './stream-transform';

/**
 * The fields the canonical request carries, and `metadata` (an end-user id for abuse tracking,
 * which changes nothing about the answer). `top_k`, `service_tier`, `cache_control`… reach an
 * Anthropic upstream only.
 */
const MAPPED = new Set([
  'model',
  'messages',
  'system',
  'max_tokens',
  'stop_sequences',
  'temperature',
  'top_p',
  'tools',
  'tool_choice',
  'stream',
  'metadata',
  'thinking',
  'output_config',
  'output_format',
]);

export const messagesForm: PublicForm = {
  name: 'messages',
  auth: 'messages',
  toCanonical(body) {
    const parsed = parseBody(messagesRequestSchema, body);
    return {
      ...toCanonicalRequest(parsed),
      inbound: { form: 'messages', body: parsed, unmappedFields: unmappedFields(parsed, MAPPED) },
    };
  },
  toResponse: (answer, meta) => toMessagesResponse(answer, meta.model, meta.traceId),
  writeStream: (response, events, meta) =>
    writeMessagesStream(response, events, {
      model: meta.model,
      traceId: meta.traceId,
      promptTokens: meta.promptTokens,
    }),
  errorBody: messagesErrorBody,
  // Its tool calls carry an object (`input` / `args`): arguments of any other kind are refused.
  answerCheck: objectArgumentsCheck,
};
