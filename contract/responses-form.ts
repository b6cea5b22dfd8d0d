/**
 * The playground's conversation in the gateway's Responses form (`POST /v1/responses`,
 * docs/responses.md), and the parts of that form's answer the BFF reads. One home for the
 * translation: the BFF sends what `toResponsesRequest` builds, and "Get code" shows the same.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
import { z } from 'zod';
import type { ChatMessage, ChatRequest } from './workbench-api';

/** One item of the Responses `input`: a message, a tool call the model made, or its result. */
export type ResponsesInputItem =
  | {
      type: 'message';
      role: 'user' | 'assistant';
      content: Array<
        | { type: 'input_text'; text: string }
        | { type: 'input_image'; image_url: string }
        | { type: 'output_text'; text: string }
      >;
    }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string };

/** The `POST /v1/responses` body the playground sends. */
export interface ResponsesRequestBody {
  model: string;
  instructions?: string;
  input: ResponsesInputItem[];
  max_output_tokens?: number;
  temperature?: number;
  top_p?: number;
  tools?: unknown[];
  tool_choice?: unknown;
  reasoning?: { effort: string };
  /** The chat form's `response_format`, flat: `{type: 'json_schema', name, schema, strict}`. */
  text?: { format: Record<string, unknown> };
  stream?: boolean;
  /** The playground keeps its own history: nothing is stored at the gateway. */
  store: false;
}

function textOf(content: ChatMessage['content']): string {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}

/** A chat tool `{type, function: {name, …}}` is flat in this form: `{type, name, …}`. */
function toResponsesTool(tool: unknown): unknown {
  if (typeof tool !== 'object' || tool === null || !('function' in tool)) return tool;
  const { function: definition, ...rest } = tool as { function: Record<string, unknown> };
  return { ...rest, ...definition, type: 'function' };
}

/** A chat tool choice naming a function, `{type, function: {name}}`, is `{type, name}` here. */
function toResponsesToolChoice(choice: unknown): unknown {
  if (typeof choice !== 'object' || choice === null || !('function' in choice)) return choice;
  const { function: named } = choice as { function: { name?: unknown } };
  return { type: 'function', name: named.name };
}

/**
 * The chat-completion request as a Responses request. System messages become `instructions`;
 * `stop` and `seed` have no field in this form, so they are named in `dropped` instead of sent.
 */
export function toResponsesRequest(request: ChatRequest['request']): {
  body: ResponsesRequestBody;
  dropped: string[];
} {
  const instructions: string[] = [];
  const input: ResponsesInputItem[] = [];
  for (const message of request.messages) {
    switch (message.role) {
      case 'system':
        instructions.push(textOf(message.content));
        break;
      case 'user': {
        const parts =
          typeof message.content === 'string' || message.content === null
            ? [{ type: 'input_text' as const, text: message.content ?? '' }]
            : message.content.map((part) =>
                part.type === 'text'
                  ? { type: 'input_text' as const, text: part.text }
                  : { type: 'input_image' as const, image_url: part.image_url.url },
              );
        input.push({ type: 'message', role: 'user', content: parts });
        break;
      }
      case 'assistant': {
        const text = textOf(message.content);
        if (text !== '') {
          input.push({
            type: 'message',
            role: 'assistant',
            content: [{ type: 'output_text', text }],
          });
        }
        for (const call of message.tool_calls ?? []) {
          input.push({
            type: 'function_call',
            call_id: call.id,
            name: call.function.name,
            arguments: call.function.arguments,
          });
        }
        break;
      }
      case 'tool':
        input.push({
          type: 'function_call_output',
          call_id: message.tool_call_id ?? '',
          output: textOf(message.content),
        });
        break;
      default:
        break;
    }
  }
  const body: ResponsesRequestBody = { model: request.model, input, store: false };
  if (instructions.length > 0) body.instructions = instructions.join('\n\n');
  if (request.max_tokens !== undefined) body.max_output_tokens = request.max_tokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.top_p !== undefined) body.top_p = request.top_p;
  if (request.tools && request.tools.length > 0) body.tools = request.tools.map(toResponsesTool);
  if (request.tool_choice !== undefined)
    body.tool_choice = toResponsesToolChoice(request.tool_choice);
  if (request.response_format !== undefined) {
    const format = request.response_format;
    body.text = {
      format: format.type === 'json_schema' ? { type: format.type, ...format.json_schema } : format,
    };
  }
  if (request.reasoning_effort !== undefined) body.reasoning = { effort: request.reasoning_effort };
  if (request.stream !== undefined) body.stream = request.stream;
  const dropped = [
    ...(request.stop && request.stop.length > 0 ? ['stop'] : []),
    ...(request.seed !== undefined ? ['seed'] : []),
  ];
  return { body, dropped };
}

/** The usage of a Responses answer, with the gateway's `cost` in USD. */
export const responsesUsageSchema = z.looseObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  total_tokens: z.number().optional(),
  cost: z.number().optional(),
  output_tokens_details: z
    .looseObject({ reasoning_tokens: z.number().optional() })
    .nullable()
    .optional(),
});

/** One `output` item; only messages, function calls and reasoning are read. */
export const responsesOutputItemSchema = z.looseObject({
  type: z.string(),
  /** `reasoning`: its text, as summary parts. */
  summary: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })).optional(),
  /** `message`: its parts (`output_text` carries `text`). */
  content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })).optional(),
  /** `function_call`: the call. */
  call_id: z.string().optional(),
  name: z.string().optional(),
  arguments: z.string().optional(),
});

/** A `response` object, the answer of a plain request and of `response.completed`. */
export const responsesObjectSchema = z.looseObject({
  id: z.string(),
  object: z.literal('response'),
  created_at: z.number().optional(),
  model: z.string(),
  status: z.string().optional(),
  incomplete_details: z.looseObject({ reason: z.string().optional() }).nullable().optional(),
  error: z.looseObject({ code: z.string().optional(), message: z.string() }).nullable().optional(),
  output: z.array(responsesOutputItemSchema),
  usage: responsesUsageSchema.nullable().optional(),
});
export type ResponsesObject = z.infer<typeof responsesObjectSchema>;

/** One streamed event, read by its `type`; unknown types are skipped by the reader. */
export const responsesStreamEventSchema = z.looseObject({
  type: z.string(),
  delta: z.string().optional(),
  output_index: z.number().optional(),
  item: responsesOutputItemSchema.optional(),
  response: responsesObjectSchema.optional(),
  /** `error` events carry the failure at the top level. */
  code: z.string().nullable().optional(),
  message: z.string().optional(),
});
export type ResponsesStreamEvent = z.infer<typeof responsesStreamEventSchema>;
