/**
 * The Responses request as the gateway accepts it: the fields it uses are described, and every
 * item and part stays loose, so fields a newer client sends still pass (to a same-form upstream
 * unchanged). Item types the gateway cannot translate are kept for the form to report.
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
import { z } from 'zod';
import { fallbackModelsSchema, providerPreferencesSchema } from '../../../contract/routing';

const text = z.looseObject({ type: z.enum(['input_text', 'output_text']), text: z.string() });
const refusal = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });
const image = z.looseObject({
  type: z.literal('input_image'),
  image_url: z.string().nullish(),
  file_id: z.string().nullish(),
  detail: z.string().nullish(),
});
const file = z.looseObject({
  type: z.literal('input_file'),
  file_data: z.string().nullish(),
  file_url: z.string().nullish(),
  file_id: z.string().nullish(),
  filename: z.string().nullish(),
});
export const contentPart = z.union([text, refusal, image, file]);
export type ContentPart = z.infer<typeof contentPart>;

const message = z.looseObject({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(contentPart)]),
});

/** A tool's output: text, or parts (text, images, files) as a function may return them. */
const toolOutput = z.union([z.string(), z.array(contentPart)]);

/** The item types described here; any other is a hosted tool's, kept as sent. */
const ITEM_TYPES = new Set([
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'reasoning',
]);

export const inputItem = z.union([
  message,
  z.looseObject({
    type: z.literal('function_call'),
    call_id: z.string().min(1),
    name: z.string().min(1),
    arguments: z.string(),
    namespace: z.string().nullish(),
  }),
  z.looseObject({
    type: z.literal('function_call_output'),
    call_id: z.string(),
    output: toolOutput,
  }),
  z.looseObject({
    type: z.literal('custom_tool_call'),
    call_id: z.string().min(1),
    name: z.string().min(1),
    input: z.string(),
  }),
  z.looseObject({
    type: z.literal('custom_tool_call_output'),
    call_id: z.string(),
    output: toolOutput,
  }),
  z.looseObject({
    type: z.literal('reasoning'),
    summary: z.array(z.looseObject({ text: z.string() })).nullish(),
    content: z.array(z.looseObject({ text: z.string() })).nullish(),
    encrypted_content: z.string().nullish(),
  }),
  // Items of hosted tools and the like: kept as sent, and reported where they cannot go.
  z.looseObject({ type: z.string().refine((type) => !ITEM_TYPES.has(type)) }),
]);
export type InputItem = z.infer<typeof inputItem>;

const functionTool = z.looseObject({
  type: z.literal('function'),
  name: z.string().min(1),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

export const tool = z.union([
  functionTool,
  z.looseObject({
    type: z.literal('custom'),
    name: z.string().min(1),
    description: z.string().nullish(),
  }),
  z.looseObject({
    type: z.literal('namespace'),
    name: z.string().min(1),
    description: z.string().nullish(),
    tools: z.array(functionTool),
  }),
  // Hosted tools (`web_search`, `file_search`…): for an upstream of this form only.
  z.looseObject({
    type: z.string().refine((type) => !['function', 'custom', 'namespace'].includes(type)),
  }),
]);
export type ResponsesTool = z.infer<typeof tool>;

const format = z.union([
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    name: z.string().min(1),
    schema: z.record(z.string(), z.unknown()),
    strict: z.boolean().nullish(),
  }),
]);

export const responsesRequestSchema = z.looseObject({
  model: z.string().min(1),
  /** The gateway's provider preferences, as on the chat form (docs/routing.md). Never sent upstream. */
  provider: providerPreferencesSchema.nullish(),
  /** Fallback models, tried in order (docs/routing.md). Never sent upstream. */
  models: fallbackModelsSchema.nullish(),
  input: z.union([z.string(), z.array(inputItem)]).optional(),
  instructions: z.string().nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  tools: z.array(tool).nullish(),
  tool_choice: z
    .union([
      z.enum(['none', 'auto', 'required']),
      z.looseObject({ type: z.enum(['function', 'custom']), name: z.string() }),
      z.looseObject({ type: z.string() }),
    ])
    .nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  reasoning: z
    .looseObject({
      effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullish(),
      summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
    })
    .nullish(),
  text: z.looseObject({ format: format.nullish(), verbosity: z.string().nullish() }).nullish(),
  store: z.boolean().nullish(),
  /** OpenAI's key for its prompt cache, sent on to OpenAI-compatible servers. */
  prompt_cache_key: z.string().nullish(),
  previous_response_id: z.string().min(1).nullish(),
  include: z.array(z.string()).nullish(),
  stream: z.boolean().nullish(),
  background: z.boolean().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  user: z.string().nullish(),
});

export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;
