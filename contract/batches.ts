/**
 * Batches on the wire (docs/batches.md): OpenAI's File and Batch objects and Anthropic's Message
 * Batch, as the gateway answers them, and the limits a file and a line are held to.
 * @see https://platform.openai.com/docs/api-reference/batch
 * @see https://docs.anthropic.com/en/api/creating-message-batches
 */
import { z } from 'zod';

export const batchLimits = {
  /** An uploaded file, in bytes. */
  fileBytes: 32 * 1024 * 1024,
  /** One line of it (or one request of a Message Batch, as JSON), in bytes. */
  lineBytes: 1024 * 1024,
  /** Lines (requests) in one batch. */
  lines: 50_000,
  /** `custom_id`, in characters. */
  customIdLength: 64,
} as const;

/** What `POST /v1/batches` takes as `endpoint`: the endpoints an OpenAI-shape batch's lines go to. */
export const openAiBatchEndpoints = [
  '/v1/chat/completions',
  '/v1/responses',
  '/v1/embeddings',
] as const;
export type OpenAiBatchEndpoint = (typeof openAiBatchEndpoints)[number];

export const openAiFileSchema = z.object({
  id: z.string(),
  object: z.literal('file'),
  bytes: z.number(),
  created_at: z.number(),
  filename: z.string(),
  purpose: z.enum(['batch', 'batch_output']),
  status: z.literal('processed'),
  expires_at: z.number().nullable(),
  status_details: z.null(),
});

export const deletedFileSchema = z.object({
  id: z.string(),
  object: z.literal('file'),
  deleted: z.boolean(),
});

export const openAiBatchStatusSchema = z.enum([
  'validating',
  'failed',
  'in_progress',
  'finalizing',
  'completed',
  'expired',
  'cancelling',
  'cancelled',
]);

export const openAiBatchSchema = z.object({
  id: z.string(),
  object: z.literal('batch'),
  endpoint: z.string(),
  errors: z.null(),
  input_file_id: z.string(),
  completion_window: z.literal('24h'),
  status: openAiBatchStatusSchema,
  output_file_id: z.string().nullable(),
  error_file_id: z.string().nullable(),
  created_at: z.number(),
  in_progress_at: z.number().nullable(),
  expires_at: z.number(),
  finalizing_at: z.number().nullable(),
  completed_at: z.number().nullable(),
  failed_at: z.null(),
  expired_at: z.null(),
  cancelling_at: z.number().nullable(),
  cancelled_at: z.number().nullable(),
  request_counts: z.object({ total: z.number(), completed: z.number(), failed: z.number() }),
  metadata: z.record(z.string(), z.string()).nullable(),
  /** The gateway's own: what the lines that ran were charged so far, in USD. */
  cost_usd: z.number(),
});
export type OpenAiBatch = z.infer<typeof openAiBatchSchema>;

export const openAiBatchListSchema = z.object({
  object: z.literal('list'),
  data: z.array(openAiBatchSchema),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
  has_more: z.boolean(),
});

export const messageBatchSchema = z.object({
  id: z.string(),
  type: z.literal('message_batch'),
  processing_status: z.enum(['in_progress', 'canceling', 'ended']),
  request_counts: z.object({
    processing: z.number(),
    succeeded: z.number(),
    errored: z.number(),
    canceled: z.number(),
    expired: z.number(),
  }),
  ended_at: z.string().nullable(),
  created_at: z.string(),
  expires_at: z.string(),
  archived_at: z.null(),
  cancel_initiated_at: z.string().nullable(),
  results_url: z.string().nullable(),
  /** The gateway's own: what the requests that ran were charged so far, in USD. */
  cost_usd: z.number(),
});
export type MessageBatch = z.infer<typeof messageBatchSchema>;

export const messageBatchListSchema = z.object({
  data: z.array(messageBatchSchema),
  has_more: z.boolean(),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
});
