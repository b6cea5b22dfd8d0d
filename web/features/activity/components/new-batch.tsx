/**
 * "New batch" (docs/workbench.md, "Batches"): a JSONL file chosen and checked here, sent with an
 * endpoint to make a batch with the profile's key; then its progress (read again while it runs),
 * the cost of its lines so far, a cancel, and its output and error files to download.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { openAiBatchEndpoints, type OpenAiBatchEndpoint } from '../../../../contract/batches';
import type { BatchCreateRequest, BatchResultsFile } from '../../../../contract/workbench-api';
import { Button } from '../../../components/button';
import { ErrorPanel } from '../../../components/error-panel';
import { SelectField } from '../../../components/select-field';
import { formatUsd } from '../../../lib/format';
import {
  batchQueryOptions,
  cancelBatch,
  createBatch,
  downloadBatchResults,
  runningBatchStates,
  useBatchProgress,
} from '../api/batch-runs';
import { checkBatchFile, uploadTooLarge } from '../batch-file';
import { BatchProgress } from './batch-progress';

type ChosenFile = { name: string; text: string; lines: number } | { error: string } | null;

export function NewBatch({ profile }: { profile: string }) {
  const queryClient = useQueryClient();
  const inputId = useId();
  const [endpoint, setEndpoint] = useState<OpenAiBatchEndpoint>('/v1/chat/completions');
  const [chosen, setChosen] = useState<ChosenFile>(null);
  const [batchId, setBatchId] = useState<string | null>(null);
  const progress = useBatchProgress(profile, batchId);
  const batch = progress.data?.batch ?? null;
  const running = batch !== null && runningBatchStates.includes(batch.status);

  // The Batches list shows the batch's end as soon as this does.
  useEffect(() => {
    if (batch && !running)
      void queryClient.invalidateQueries({ queryKey: ['activity', 'batches'] });
  }, [batch, running, queryClient]);

  const create = useMutation({
    mutationFn: (request: BatchCreateRequest) => createBatch(request),
    onSuccess: (view) => {
      queryClient.setQueryData(batchQueryOptions(profile, view.batch.id).queryKey, view);
      setBatchId(view.batch.id);
      void queryClient.invalidateQueries({ queryKey: ['activity', 'batches'] });
    },
  });
  const cancel = useMutation({
    mutationFn: (id: string) => cancelBatch(profile, id),
    onSuccess: (view) =>
      queryClient.setQueryData(batchQueryOptions(profile, view.batch.id).queryKey, view),
  });
  const download = useMutation({
    mutationFn: ({ id, file }: { id: string; file: BatchResultsFile }) =>
      downloadBatchResults(profile, id, file),
  });

  async function choose(file: File | undefined) {
    create.reset();
    if (!file) return setChosen(null);
    const check = await checkBatchFile(file);
    setChosen(check.ok ? { name: file.name, text: check.text, lines: check.lines } : check);
  }

  function submit() {
    if (!chosen || 'error' in chosen) return;
    const request = { profile, endpoint, file_name: chosen.name, content: chosen.text };
    const tooLarge = uploadTooLarge(chosen.name, request);
    if (tooLarge) return setChosen({ error: tooLarge });
    create.mutate(request);
  }

  return (
    <section aria-labelledby="new-batch-heading" className="flex flex-col gap-2">
      <h2 id="new-batch-heading" className="text-sm font-semibold">
        New batch
      </h2>
      <div className="flex flex-wrap items-end gap-3">
        <label
          htmlFor={inputId}
          className="flex flex-col gap-0.5 text-xs font-medium text-zinc-600 dark:text-zinc-400"
        >
          JSONL file
          <input
            id={inputId}
            type="file"
            accept=".jsonl,application/jsonl,application/x-ndjson,text/plain"
            className="text-xs"
            onChange={(event) => void choose(event.target.files?.[0])}
          />
        </label>
        <SelectField
          label="Endpoint"
          value={endpoint}
          options={openAiBatchEndpoints.map((value) => ({ value, label: value }))}
          onChange={(value) => setEndpoint(value as OpenAiBatchEndpoint)}
        />
        <Button
          variant="primary"
          disabled={!chosen || 'error' in chosen || create.isPending}
          onClick={submit}
        >
          {create.isPending ? 'Creating…' : 'Create batch'}
        </Button>
      </div>
      {chosen && 'error' in chosen && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-400">
          {chosen.error}
        </p>
      )}
      {chosen && 'lines' in chosen && (
        <p className="text-xs text-zinc-600 dark:text-zinc-400">
          {chosen.lines.toLocaleString('en-US')} {chosen.lines === 1 ? 'request' : 'requests'} in “
          {chosen.name}”.
        </p>
      )}
      {create.isError && <ErrorPanel what="Creating the batch" error={create.error} />}
      {progress.isError && (
        <ErrorPanel
          what="Reading the batch’s progress"
          error={progress.error}
          onRetry={() => void progress.refetch()}
        />
      )}
      {batch && (
        <div
          aria-label={`Batch ${batch.id}`}
          role="group"
          className="flex flex-wrap items-center gap-3 rounded-lg border border-zinc-200 p-3 text-xs dark:border-zinc-800"
        >
          <span className="font-mono">{batch.id}</span>
          <span>{batch.status.replace('_', ' ')}</span>
          <span>
            <BatchProgress batch={batch} />
          </span>
          <span>Cost so far {formatUsd(batch.cost_usd)}</span>
          {running && batch.status !== 'cancelling' && (
            <Button
              size="small"
              variant="danger"
              disabled={cancel.isPending}
              onClick={() => cancel.mutate(batch.id)}
            >
              Cancel batch
            </Button>
          )}
          {batch.output_file_id && (
            <Button size="small" onClick={() => download.mutate({ id: batch.id, file: 'output' })}>
              Download output
            </Button>
          )}
          {batch.error_file_id && (
            <Button size="small" onClick={() => download.mutate({ id: batch.id, file: 'error' })}>
              Download errors
            </Button>
          )}
        </div>
      )}
      {cancel.isError && <ErrorPanel what="Cancelling the batch" error={cancel.error} />}
      {download.isError && <ErrorPanel what="Downloading the results" error={download.error} />}
    </section>
  );
}
