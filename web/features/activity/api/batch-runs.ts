/**
 * One batch made in the workbench (`/api/batches…`, docs/workbench.md): created from a file,
 * watched while it runs, cancelled, its output or error file downloaded.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import {
  batchDetailViewSchema,
  type BatchCreateRequest,
  type BatchDetailView,
  type BatchResultsFile,
} from '../../../../contract/workbench-api';
import { apiGet, apiPost, apiSend, withQuery } from '../../../lib/api-client';
import { downloadFile } from '../../../lib/download';

/** A batch still has lines to end in these states: its progress is read again while in one. */
export const runningBatchStates = ['validating', 'in_progress', 'finalizing', 'cancelling'];

const batchPath = (id: string) => `/api/batches/${encodeURIComponent(id)}`;

export function createBatch(request: BatchCreateRequest): Promise<BatchDetailView> {
  return apiPost('/api/batches', request, batchDetailViewSchema);
}

export function cancelBatch(profile: string, id: string): Promise<BatchDetailView> {
  return apiPost(`${batchPath(id)}/cancel`, { profile }, batchDetailViewSchema);
}

/** Downloads the batch's output or error file (JSONL) as `<batch id>-<file>.jsonl`. */
export async function downloadBatchResults(
  profile: string,
  id: string,
  file: BatchResultsFile,
): Promise<void> {
  const response = await apiSend('GET', withQuery(`${batchPath(id)}/results`, { profile, file }));
  downloadFile(`${id}-${file}.jsonl`, await response.blob());
}

export function batchQueryOptions(profile: string, id: string) {
  return queryOptions({
    queryKey: ['batch', profile, id],
    queryFn: ({ signal }) =>
      apiGet(withQuery(batchPath(id), { profile }), batchDetailViewSchema, { signal }),
    refetchInterval: (query) =>
      runningBatchStates.includes(query.state.data?.batch.status ?? '') ? 2_000 : false,
  });
}

/** The batch's progress, read again every 2 s while it runs; idle without a batch. */
export function useBatchProgress(profile: string, id: string | null) {
  return useQuery({ ...batchQueryOptions(profile, id ?? ''), enabled: id !== null });
}
