/**
 * The Messages request as the gateway accepts it. Only the fields the gateway uses are described;
 * other fields (`cache_control`, `service_tier`, `context_management`…) are kept: a Messages
 * upstream gets them as sent, another kind drops them and says so (form index.ts). Claude Code's
 * system-role messages inside `messages` are accepted too.
 * @see https://docs.anthropic.com/en/api/messages
 */
import { z } from 'zod';

const textBlock = z.looseObject({ type: z.literal('text'), text: z.string() });

const imageBlock = z.looseObject({
  type: z.literal('image'),
  source: z.discriminatedUnion('type', [
    z.looseObject({
      type: z.literal('base64'),
      media_type: z.string().min(1),
      data: z.string().min(1),
    }),
    z.looseObject({ type: z.literal('url'), url: z.string().min(1) }),
  ]),
});

const toolUseBlock = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown(),
});

const toolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(z.union([textBlock, imageBlock]))]).optional(),
  is_error: z.boolean().optional(),
});

const knownBlockTypes = ['text', 'image', 'tool_use', 'tool_result'];

/**
 * Blocks the gateway cannot use (thinking, documents…) are accepted and dropped, not refused; a
 * known type with a bad field is still refused, by its own schema.
 */
const otherBlock = z.looseObject({
  type: z
    .string()
    .refine((type) => !knownBlockTypes.includes(type), { message: 'Invalid content block' }),
});

const contentBlock = z.union([textBlock, imageBlock, toolUseBlock, toolResultBlock, otherBlock]);

const message = z.discriminatedUnion('role', [
  z.looseObject({
    role: z.enum(['user', 'assistant']),
    content: z.union([z.string(), z.array(contentBlock)]),
  }),
  // An instruction inside the conversation: text only, as the top-level `system`.
  z.looseObject({
    role: z.literal('system'),
    content: z.union([z.string(), z.array(textBlock)]),
  }),
]);

const tool = z.looseObject({
  name: z.string().min(1),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()).optional(),
});

const toolChoice = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('auto') }),
  z.looseObject({ type: z.literal('any') }),
  z.looseObject({ type: z.literal('none') }),
  z.looseObject({ type: z.literal('tool'), name: z.string().min(1) }),
]);

/** What `count_tokens` takes: a Messages request without `max_tokens`. */
export const countTokensRequestSchema = z.looseObject({
  model: z.string().min(1),
  system: z.union([z.string(), z.array(textBlock)]).optional(),
  messages: z.array(message).min(1),
  tools: z.array(tool).optional(),
  tool_choice: toolChoice.optional(),
});

/**
 * Extended thinking: a budget (`enabled`), the model's own choice (`adaptive`), or none.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
 */
const thinking = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('enabled'), budget_tokens: z.number().int().positive() }),
  z.looseObject({ type: z.literal('adaptive') }),
  z.looseObject({ type: z.literal('disabled') }),
]);

/** A JSON schema the answer must match (structured outputs). */
const jsonSchemaFormat = z.looseObject({
  type: z.literal('json_schema'),
  schema: z.record(z.string(), z.unknown()),
});

/**
 * `effort` and `format` (structured outputs); `output_format` is the same format's earlier, beta
 * home, still sent by older clients.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/structured-outputs
 * @see https://docs.anthropic.com/en/docs/build-with-claude/effort
 */
const outputConfig = z.looseObject({
  effort: z.string().optional(),
  format: jsonSchemaFormat.nullish(),
});

export const messagesRequestSchema = countTokensRequestSchema.extend({
  // Required, as in the vendor's API.
  max_tokens: z.number().int().positive(),
  stop_sequences: z.array(z.string()).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().nonnegative().optional(),
  stream: z.boolean().optional(),
  metadata: z.looseObject({ user_id: z.string().nullish() }).optional(),
  thinking: thinking.optional(),
  output_config: outputConfig.optional(),
  output_format: jsonSchemaFormat.nullish(),
});

export type MessagesRequest = z.infer<typeof messagesRequestSchema>;
export type CountTokensRequest = z.infer<typeof countTokensRequestSchema>;
export type TextBlock = z.infer<typeof textBlock>;
export type ImageBlock = z.infer<typeof imageBlock>;
export type ToolUseBlock = z.infer<typeof toolUseBlock>;
export type ToolResultBlock = z.infer<typeof toolResultBlock>;
export type MessagesContentBlock = z.infer<typeof contentBlock>;
