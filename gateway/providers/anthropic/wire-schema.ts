/**
 * The Messages API's answers, as far as this provider reads them: lenient on everything else, so
 * a field the vendor adds tomorrow does not break today's gateway.
 * @see https://docs.anthropic.com/en/api/messages
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */
import { z } from 'zod';
import { reportedCount } from '../upstream/reported-count';

/** Token counts; in a stream every field is cumulative, and any may be missing. */
export const usageSchema = z.looseObject({
  input_tokens: reportedCount,
  output_tokens: reportedCount,
  cache_creation_input_tokens: reportedCount,
  cache_read_input_tokens: reportedCount,
  /** The cache writes by entry lifetime; their sum is `cache_creation_input_tokens`. */
  cache_creation: z
    .looseObject({
      ephemeral_5m_input_tokens: reportedCount,
      ephemeral_1h_input_tokens: reportedCount,
    })
    .nullish()
    .catch(null),
  /** Of `output_tokens`, those spent thinking. */
  output_tokens_details: z.looseObject({ thinking_tokens: reportedCount }).nullish().catch(null),
});

export type AnthropicUsage = z.infer<typeof usageSchema>;

/** Usage the gateway cannot read is unreported, not a broken answer (reported-count.ts). */
const reportedUsage = usageSchema.nullish().catch(null);

export const textBlockSchema = z.looseObject({ type: z.literal('text'), text: z.string() });

export const toolUseBlockSchema = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown().optional(),
});

/**
 * The model's reasoning: its text and the signature the vendor needs to see it again, or (redacted)
 * only an encrypted form.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
 */
export const thinkingBlockSchema = z.looseObject({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z.string().optional(),
});

export const redactedThinkingBlockSchema = z.looseObject({
  type: z.literal('redacted_thinking'),
  data: z.string(),
});

/** Any block: read further by its own schema only when its type is one the gateway uses. */
const anyBlockSchema = z.looseObject({ type: z.string() });

export const messageResponseSchema = z.looseObject({
  content: z.array(anyBlockSchema),
  stop_reason: z.string().nullish(),
  stop_sequence: z.string().nullish(),
  usage: reportedUsage,
});

/** Every stream event's data names its type; the rest is read per type. */
export const streamEventSchema = z.looseObject({ type: z.string() });

export const messageStartSchema = z.looseObject({
  message: z.looseObject({ usage: reportedUsage }),
});

export const contentBlockStartSchema = z.looseObject({
  index: z.number().int(),
  content_block: anyBlockSchema,
});

export const contentBlockDeltaSchema = z.looseObject({
  index: z.number().int(),
  delta: z.looseObject({
    type: z.string(),
    text: z.string().optional(),
    partial_json: z.string().optional(),
    thinking: z.string().optional(),
    signature: z.string().optional(),
  }),
});

export const contentBlockStopSchema = z.looseObject({ index: z.number().int() });

export const messageDeltaSchema = z.looseObject({
  delta: z.looseObject({
    stop_reason: z.string().nullish(),
    stop_sequence: z.string().nullish(),
  }),
  usage: reportedUsage,
});

/** The error body, both of a non-2xx answer and of an `error` event inside a stream. */
export const errorBodySchema = z.looseObject({
  error: z.looseObject({
    type: z.string().optional(),
    message: z.string().optional(),
  }),
});
