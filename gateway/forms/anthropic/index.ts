/** The Messages form (vendor A) as one object (see public-form.ts). */
import { unmappedFields, type PublicForm } from '../public-form';
import { objectArgumentsCheck } from '../tool-arguments';
import { parseBody } from '../validation';
import { messagesErrorBody } from './error-shape';
import { toCanonicalRequest, withoutBillingLine } from './request-to-canonical';
import { messagesRequestSchema, type MessagesRequest } from './request-schema';
import { toMessagesResponse } from './canonical-to-response';
import { writeMessagesStream } from './canonical-to-stream';

/**
 * The fields the canonical request carries, and `metadata` (an end-user id for abuse tracking,
 * which changes nothing about the answer). `top_k`, `service_tier`, `context_management`… reach an
 * Anthropic upstream only; another kind drops them and says so.
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

/** Block types the canonical request carries; thinking goes back only where it was made. */
const CARRIED_BLOCKS = new Set([
  'text',
  'image',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
]);
/** Keys of a block, tool or system block that the canonical request carries. */
const BLOCK_KEYS: Record<string, ReadonlySet<string>> = {
  text: new Set(['type', 'text']),
  image: new Set(['type', 'source']),
  tool_use: new Set(['type', 'id', 'name', 'input']),
  tool_result: new Set(['type', 'tool_use_id', 'content', 'is_error']),
  thinking: new Set(['type', 'thinking', 'signature']),
  redacted_thinking: new Set(['type', 'data']),
};
const TOOL_KEYS = new Set(['name', 'description', 'input_schema', 'type']);

/**
 * Top-level and nested fields the canonical request lacks, as dotted paths: `cache_control` on
 * any block, a tool's `defer_loading`, a server tool, a document block, an image in a tool result,
 * Claude Code's billing line (`system.0.text(x-anthropic-billing-header)`).
 */
function messagesUnmappedFields(body: MessagesRequest): string[] {
  const fields = unmappedFields(body, MAPPED);
  const { dropped: billingLine } = withoutBillingLine(body.system);
  if (billingLine !== null) fields.push(billingLine);
  const extraKeys = (value: Record<string, unknown>, keys: ReadonlySet<string>, at: string) =>
    fields.push(...unmappedFields(value, keys).map((key) => `${at}.${key}`));
  if (Array.isArray(body.system)) {
    body.system.forEach((block, index) => extraKeys(block, BLOCK_KEYS.text!, `system.${index}`));
  }
  body.messages.forEach((message, index) => {
    if (typeof message.content === 'string') return;
    message.content.forEach((block, blockIndex) => {
      const at = `messages.${index}.content.${blockIndex}`;
      if (!CARRIED_BLOCKS.has(block.type)) fields.push(at);
      else extraKeys(block, BLOCK_KEYS[block.type]!, at);
      if (block.type === 'tool_result' && Array.isArray(block.content)) {
        block.content.forEach((inner, innerIndex) => {
          if (inner.type !== 'text') fields.push(`${at}.content.${innerIndex}`);
          else extraKeys(inner, BLOCK_KEYS.text!, `${at}.content.${innerIndex}`);
        });
      }
    });
  });
  (body.tools ?? []).forEach((tool, index) => {
    // A typed tool other than `custom` is one the vendor runs (web search, code execution).
    if (tool.type !== undefined && tool.type !== 'custom') fields.push(`tools.${index}`);
    else extraKeys(tool, TOOL_KEYS, `tools.${index}`);
  });
  return fields;
}

export const messagesForm: PublicForm = {
  name: 'messages',
  auth: 'messages',
  toCanonical(body) {
    const parsed = parseBody(messagesRequestSchema, body);
    return {
      ...toCanonicalRequest(parsed),
      inbound: { form: 'messages', body: parsed, unmappedFields: messagesUnmappedFields(parsed) },
    };
  },
  // Claude Code turns features on with betas; the vendor reads the body by its version.
  passHeaders: ['anthropic-beta', 'anthropic-version'],
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
