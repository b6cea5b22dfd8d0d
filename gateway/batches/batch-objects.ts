/**
 * A batch in each shape's own words: OpenAI's Batch object and its output and error files' lines,
 * Anthropic's Message Batch and its results' lines, from the stored batch and its line counts.
 * @see https://platform.openai.com/docs/api-reference/batch/object
 * @see https://docs.anthropic.com/en/api/retrieving-message-batches
 */
import type { MessageBatch, OpenAiBatch } from '../../contract/batches';
import { nanosToUsd } from '../shared/money';
import type { BatchLineRow, BatchRow, LineCounts } from '../store/batches';
import { lineTraceId } from './line-runner';

/** A batch is answered for 24 hours, as both vendors promise; the gateway starts at once. */
export const COMPLETION_WINDOW_SECONDS = 24 * 3600;

export function openAiBatchObject(batch: BatchRow, counts: LineCounts): OpenAiBatch {
  const ended = batch.endedAt;
  return {
    id: batch.id,
    object: 'batch',
    endpoint: batch.endpoint,
    errors: null,
    input_file_id: batch.inputFileId ?? '',
    completion_window: '24h',
    status: batch.status,
    output_file_id: batch.outputFileId,
    error_file_id: batch.errorFileId,
    created_at: batch.createdAt,
    in_progress_at: batch.inProgressAt,
    expires_at: batch.expiresAt,
    finalizing_at: ended,
    completed_at: batch.status === 'completed' ? ended : null,
    failed_at: null,
    expired_at: null,
    cancelling_at: batch.cancellingAt,
    cancelled_at: batch.status === 'cancelled' ? ended : null,
    request_counts: {
      total: counts.total,
      completed: counts.succeeded,
      failed: counts.errored,
    },
    metadata: batch.metadata,
    cost_usd: nanosToUsd(counts.costNanos),
  };
}

/** An output or error file's line: OpenAI's `{id, custom_id, response, error}`. */
export function openAiResultLine(line: BatchLineRow): string {
  return JSON.stringify({
    id: `batch_req_${lineTraceId(line.batchId, line.index).slice(0, 16)}`,
    custom_id: line.customId,
    response: {
      status_code: line.statusCode,
      request_id: line.generationId ?? lineTraceId(line.batchId, line.index),
      body: line.result,
    },
    error: null,
  });
}

const iso = (unixSeconds: number | null) =>
  unixSeconds === null ? null : new Date(unixSeconds * 1000).toISOString();

/** `in_progress` and `cancelling` map to Anthropic's; every ended status is `ended`. */
function processingStatus(batch: BatchRow): MessageBatch['processing_status'] {
  if (batch.status === 'cancelling') return 'canceling';
  if (batch.status === 'in_progress' || batch.status === 'validating') return 'in_progress';
  return 'ended';
}

export function messageBatchObject(
  batch: BatchRow,
  counts: LineCounts,
  origin: string,
): MessageBatch {
  const status = processingStatus(batch);
  return {
    id: batch.id,
    type: 'message_batch',
    processing_status: status,
    request_counts: {
      processing: counts.pending + counts.running,
      succeeded: counts.succeeded,
      errored: counts.errored,
      canceled: counts.cancelled,
      expired: 0,
    },
    ended_at: iso(batch.endedAt),
    created_at: iso(batch.createdAt)!,
    expires_at: iso(batch.expiresAt)!,
    archived_at: null,
    cancel_initiated_at: iso(batch.cancellingAt),
    results_url: status === 'ended' ? `${origin}/v1/messages/batches/${batch.id}/results` : null,
    cost_usd: nanosToUsd(counts.costNanos),
  };
}

/** A results line: Anthropic's `{custom_id, result}`, `succeeded`, `errored` or `canceled`. */
export function messageResultLine(line: BatchLineRow): string {
  const result =
    line.state === 'succeeded'
      ? { type: 'succeeded', message: line.result }
      : line.state === 'errored'
        ? { type: 'errored', error: line.result }
        : { type: 'canceled' };
  return JSON.stringify({ custom_id: line.customId, result });
}
