/**
 * The playground's own data: a conversation, the parameters, and the record of each run. These
 * shapes are stored in localStorage (history, presets), so they are zod schemas: a stored entry
 * from an older page version is checked before it is trusted.
 */
import { z } from 'zod';
import {
  callMetaSchema,
  chatRequestSchema,
  reasoningEffortSchema,
} from '../../../contract/workbench-api';

export const messageRoleSchema = z.enum(['system', 'user', 'assistant', 'tool']);
export type MessageRole = z.infer<typeof messageRoleSchema>;

/** A tool call the model asked for, in the chat-completion form. */
export const toolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

/** Token usage of one run; `cost` is present when the gateway reported it. */
export const runUsageSchema = z.object({
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  total_tokens: z.number(),
  cost: z.number().optional(),
  /** Of `completion_tokens`, those spent reasoning, when the gateway said. */
  reasoning_tokens: z.number().optional(),
});
export type RunUsage = z.infer<typeof runUsageSchema>;

/** A failed run, as shown in place of (or under) the reply. */
export const runErrorSchema = z.object({
  message: z.string(),
  /** HTTP status of the BFF's answer (0 when none arrived). */
  status: z.number(),
  stage: z.string(),
  upstreamStatus: z.number().nullable(),
  cfRay: z.string().nullable(),
  advice: z.string().nullable(),
  type: z.string().nullable(),
  /** A streamed answer that broke off because the connection to the gateway was lost. */
  brokeOff: z.boolean().optional(),
});
export type RunError = z.infer<typeof runErrorSchema>;

/** One event of the BFF's stream as it arrived, for the raw view. */
export const rawStreamEventSchema = z.object({
  event: z.string(),
  data: z.string(),
  /** Milliseconds since the request was sent. */
  atMs: z.number(),
});
export type RawStreamEvent = z.infer<typeof rawStreamEventSchema>;

/** What came back: the stream's events, or the JSON answer. */
export const rawResponseSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('stream'),
    status: z.number(),
    events: z.array(rawStreamEventSchema),
  }),
  z.object({ kind: z.literal('json'), status: z.number(), body: z.unknown() }),
]);
export type RawResponse = z.infer<typeof rawResponseSchema>;

export const runStatusSchema = z.enum(['streaming', 'done', 'stopped', 'error']);
export type RunStatus = z.infer<typeof runStatusSchema>;

/** Everything measured about one request for one reply. */
export const runRecordSchema = z.object({
  model: z.string(),
  status: runStatusSchema,
  streamed: z.boolean(),
  /** Epoch milliseconds when the request was sent. */
  startedAt: z.number(),
  /** Milliseconds from sending to the first content (or tool call) delta. */
  firstTokenMs: z.number().nullable(),
  /** Milliseconds from sending to the end of the answer (or to Stop). */
  totalMs: z.number().nullable(),
  cfRay: z.string().nullable(),
  upstreamStatus: z.number().nullable(),
  /** The BFF's own timing of the gateway call. */
  meta: callMetaSchema.nullable(),
  finishReason: z.string().nullable(),
  usage: runUsageSchema.nullable(),
  error: runErrorSchema.nullable(),
  /** The exact `POST /api/chat` body that was sent. */
  request: chatRequestSchema,
  response: rawResponseSchema.nullable(),
});
export type RunRecord = z.infer<typeof runRecordSchema>;

/** One message of the conversation, with what the UI needs beyond the wire form. */
export const conversationMessageSchema = z.object({
  id: z.string(),
  role: messageRoleSchema,
  text: z.string(),
  /** For assistant replies: the model's reasoning text, when it showed it. */
  reasoning: z.string().optional(),
  /** Attached images as data URLs (user messages of image-capable models). */
  images: z.array(z.string()),
  toolCalls: z.array(toolCallSchema).optional(),
  /** For `tool` messages: the call this answers. */
  toolCallId: z.string().optional(),
  /** For `tool` messages: the function's name, shown to people. */
  name: z.string().optional(),
  /** For assistant replies produced here: how the run went. */
  run: runRecordSchema.optional(),
});
export type ConversationMessage = z.infer<typeof conversationMessageSchema>;

/** The request parameters; null means "leave it to the model's default" (not sent). */
export const parametersSchema = z.object({
  max_tokens: z.number().nullable(),
  temperature: z.number().nullable(),
  top_p: z.number().nullable(),
  stop: z.array(z.string()),
  seed: z.number().nullable(),
  stream: z.boolean(),
  // Defaults, not required: history and presets saved before these fields existed still load.
  /** `auto`, `none`, `required`, or the name of one of the tools; null is not sent. */
  tool_choice: z.string().nullable().default(null),
  /** The `response_format` type; null is not sent. */
  response_format: z.enum(['text', 'json_object', 'json_schema']).nullable().default(null),
  /** The JSON schema, as typed, for `response_format` `json_schema`. */
  response_schema: z.string().default(''),
  /** How hard a reasoning model thinks; null is not sent (the model's default). */
  reasoning_effort: reasoningEffortSchema.nullable().default(null),
});
export type Parameters = z.infer<typeof parametersSchema>;

export const defaultParameters: Parameters = {
  max_tokens: 1024,
  temperature: null,
  top_p: null,
  stop: [],
  seed: null,
  stream: true,
  tool_choice: null,
  response_format: null,
  response_schema: '',
  reasoning_effort: null,
};

/** One column of a compare run: a model and its reply to the shared conversation. */
export const compareLaneSchema = z.object({
  model: z.string(),
  reply: conversationMessageSchema.nullable(),
});
export type CompareLane = z.infer<typeof compareLaneSchema>;

/** The whole playground session: what history saves and reopens. */
export const playgroundSessionSchema = z.object({
  model: z.string(),
  /** Extra models of compare mode (one or two); empty when not comparing. */
  compareModels: z.array(z.string()),
  compareEnabled: z.boolean(),
  systemPrompt: z.string(),
  messages: z.array(conversationMessageSchema),
  parameters: parametersSchema,
  /** Tool definitions as the JSON text the person typed. */
  toolsText: z.string(),
  /** The last compare run's columns. */
  compareLanes: z.array(compareLaneSchema),
});
export type PlaygroundSession = z.infer<typeof playgroundSessionSchema>;
