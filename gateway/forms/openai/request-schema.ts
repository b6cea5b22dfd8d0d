/**
 * The chat-completion request as the gateway accepts it. Only the fields the gateway uses are
 * described; other fields are accepted and ignored, so newer clients that send more still work.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */
import { z } from 'zod';
import { fallbackModelsSchema, providerPreferencesSchema } from '../../../contract/routing';

/**
 * A prompt-cache breakpoint on a text part, or on the whole request, as OpenRouter takes them
 * for Anthropic models (`ttl`: five minutes unless `1h`).
 * @see https://openrouter.ai/docs/guides/best-practices/prompt-caching
 */
const cacheControl = z.looseObject({
  type: z.literal('ephemeral'),
  ttl: z.enum(['5m', '1h']).nullish(),
});

const textPart = z.looseObject({
  type: z.literal('text'),
  text: z.string(),
  cache_control: cacheControl.nullish(),
});
const imagePart = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.union([z.string(), z.looseObject({ url: z.string().min(1) })]),
});
const contentParts = z.array(z.union([textPart, imagePart]));

const toolCall = z.looseObject({
  id: z.string(),
  type: z.literal('function').optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

/**
 * OpenRouter's reasoning blocks, handed back on a later turn with their signatures.
 * @see https://openrouter.ai/docs/use-cases/reasoning-tokens#preserving-reasoning-blocks
 */
const reasoningDetail = z.looseObject({
  type: z.string(),
  text: z.string().nullish(),
  signature: z.string().nullish(),
  data: z.string().nullish(),
  index: z.number().int().nullish(),
});

const message = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('system'), content: z.union([z.string(), z.array(textPart)]) }),
  z.looseObject({
    role: z.literal('developer'),
    content: z.union([z.string(), z.array(textPart)]),
  }),
  z.looseObject({ role: z.literal('user'), content: z.union([z.string(), contentParts]) }),
  z.looseObject({
    role: z.literal('assistant'),
    content: z.union([z.string(), z.array(textPart)]).nullish(),
    tool_calls: z.array(toolCall).optional(),
    reasoning_details: z.array(reasoningDetail).nullish(),
  }),
  z.looseObject({
    role: z.literal('tool'),
    content: z.union([z.string(), z.array(textPart)]),
    tool_call_id: z.string(),
  }),
]);

export const chatCompletionRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(message).min(1),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
  seed: z.number().int().nullish(),
  tools: z
    .array(
      z.looseObject({
        type: z.literal('function'),
        function: z.looseObject({
          name: z.string().min(1),
          description: z.string().optional(),
          parameters: z.record(z.string(), z.unknown()).optional(),
        }),
      }),
    )
    .nullish(),
  tool_choice: z
    .union([
      z.enum(['none', 'auto', 'required']),
      z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string() }) }),
    ])
    .nullish(),
  stream: z.boolean().nullish(),
  /** OpenAI's effort; `xhigh` and `none` are newer values, passed on as they are. */
  reasoning_effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullish(),
  /**
   * OpenRouter's reasoning object: an effort or a token budget, and `exclude` to leave the
   * reasoning text out of the answer.
   * @see https://openrouter.ai/docs/use-cases/reasoning-tokens
   */
  reasoning: z
    .looseObject({
      effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullish(),
      max_tokens: z.number().int().positive().nullish(),
      exclude: z.boolean().nullish(),
      enabled: z.boolean().nullish(),
    })
    .nullish(),
  /** @see https://platform.openai.com/docs/guides/structured-outputs */
  response_format: z
    .discriminatedUnion('type', [
      z.looseObject({ type: z.literal('text') }),
      z.looseObject({ type: z.literal('json_object') }),
      z.looseObject({
        type: z.literal('json_schema'),
        json_schema: z.looseObject({
          name: z.string().min(1),
          schema: z.record(z.string(), z.unknown()).optional(),
          strict: z.boolean().nullish(),
        }),
      }),
    ])
    .nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  /**
   * The gateway's provider preferences, OpenRouter's spelling (docs/routing.md);
   * `require_parameters: true` turns on strict mode. Never sent upstream.
   * @see https://openrouter.ai/docs/features/provider-routing
   */
  provider: providerPreferencesSchema.nullish(),
  /** Fallback models, tried in order (docs/routing.md). Never sent upstream. */
  models: fallbackModelsSchema.nullish(),
  cache_control: cacheControl.nullish(),
  /**
   * OpenAI's key for its prompt cache: requests that share a prefix and a key reach the same cache.
   * @see https://platform.openai.com/docs/guides/prompt-caching
   */
  prompt_cache_key: z.string().nullish(),
});

export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;
