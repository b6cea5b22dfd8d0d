/**
 * The playground for an embedding model: several inputs and an optional `dimensions`, sent with
 * Embed; then each vector's size and first values, the usage, charge and trace id, and how alike
 * the inputs are (cosine similarity, computed here from the returned vectors).
 */
import { useId } from 'react';
import { maxEmbeddingInputs } from '../../../../contract/workbench-api';
import { Button } from '../../../components/button';
import { CopyButton } from '../../../components/copy-button';
import { ErrorPanel } from '../../../components/error-panel';
import { formatUsd } from '../../../lib/format';
import { useEmbed } from './embed';
import { SimilarityMatrix } from './similarity-matrix';
import { summarizeVector } from './vector-summary';
import {
  embeddingsRequestOf,
  minimumEmbeddingInputs,
  type EmbeddingsDraftState,
} from './use-embeddings-draft';

const valueFormat = new Intl.NumberFormat('en-US', {
  minimumFractionDigits: 4,
  maximumFractionDigits: 4,
  signDisplay: 'negative',
});

export function EmbeddingsView({
  profile,
  model,
  draftState,
}: {
  profile: string | null;
  model: string;
  draftState: EmbeddingsDraftState;
}) {
  const { draft } = draftState;
  const embedding = useEmbed();
  const traceLabelId = useId();
  const embedReasonId = useId();
  const built = embeddingsRequestOf(draft, model);
  const disabledReason = !profile
    ? 'No key profile: the BFF holds none (see Keys).'
    : !built.ok
      ? built.problem
      : null;
  // The result is shown with the inputs it was made from, even after they are edited.
  const sent = embedding.variables?.request;
  const result = embedding.data;

  return (
    <section aria-label="Embeddings" className="flex flex-col gap-3">
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        {model} is an embedding model: it turns each input into a vector. Embed sends them to the
        gateway’s <code className="font-mono">/v1/embeddings</code>; the similarities are worked out
        in this browser. Dimensions asks for a shorter vector, from models that can give one.
      </p>
      <ol aria-label="Inputs" className="flex flex-col gap-2">
        {draft.inputs.map((text, index) => (
          <li key={index} className="flex items-start gap-2">
            <label className="flex min-w-0 flex-1 flex-col gap-1 text-xs font-medium text-zinc-600 dark:text-zinc-400">
              Input {index + 1}
              <textarea
                value={text}
                rows={2}
                onChange={(event) => draftState.setInput(index, event.target.value)}
                placeholder="Text to embed"
                className="w-full resize-y rounded-md border border-zinc-300 bg-white p-2 text-sm font-normal text-zinc-900 placeholder:text-zinc-400 placeholder:italic dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:placeholder:text-zinc-500"
              />
            </label>
            <Button
              size="small"
              variant="ghost"
              className="mt-5"
              aria-label={`Remove input ${index + 1}`}
              disabled={draft.inputs.length <= minimumEmbeddingInputs}
              title={
                draft.inputs.length <= minimumEmbeddingInputs
                  ? 'The only input: there must be one.'
                  : undefined
              }
              onClick={() => draftState.removeInput(index)}
            >
              ✕
            </Button>
          </li>
        ))}
      </ol>
      <div>
        <Button
          size="small"
          onClick={draftState.addInput}
          disabled={draft.inputs.length >= maxEmbeddingInputs}
        >
          Add input
        </Button>
      </div>
      <div className="flex flex-wrap items-end gap-3">
        <label className="flex flex-col gap-1 text-xs font-medium text-zinc-600 dark:text-zinc-400">
          Dimensions (optional)
          <input
            inputMode="numeric"
            value={draft.dimensionsText}
            onChange={(event) => draftState.setDimensionsText(event.target.value)}
            placeholder="the model’s own"
            className="h-8 w-36 rounded-md border border-zinc-300 bg-white px-2 text-sm font-normal text-zinc-900 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
          />
        </label>
        <Button
          variant="primary"
          disabled={disabledReason !== null || embedding.isPending}
          aria-describedby={disabledReason ? embedReasonId : undefined}
          onClick={() => {
            if (profile && built.ok) embedding.mutate({ profile, request: built.request });
          }}
        >
          {embedding.isPending ? 'Embedding…' : 'Embed'}
        </Button>
        {/* Why Embed is disabled, next to it, from the start. */}
        {disabledReason && (
          <p id={embedReasonId} className="self-center text-xs text-zinc-600 dark:text-zinc-400">
            {disabledReason}
          </p>
        )}
      </div>

      {embedding.isError && <ErrorPanel what="Embedding the inputs" error={embedding.error} />}
      {result && sent && (
        <section
          aria-label="Embeddings result"
          className="flex flex-col gap-3 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800"
        >
          <div className="flex flex-wrap items-center gap-x-4 gap-y-1 text-xs">
            <span className="inline-flex flex-wrap items-center gap-x-2">
              <span id={traceLabelId} className="font-medium text-zinc-600 dark:text-zinc-400">
                Trace ID
              </span>
              {result.meta.cf_ray ? (
                <>
                  <code aria-labelledby={traceLabelId} className="font-mono select-all">
                    {result.meta.cf_ray}
                  </code>
                  <CopyButton
                    text={result.meta.cf_ray}
                    label="Copy cf-ray"
                    variant="ghost"
                    className="h-6"
                  />
                </>
              ) : (
                <span>none sent</span>
              )}
            </span>
            <span>
              <span className="font-medium text-zinc-600 dark:text-zinc-400">Prompt tokens</span>{' '}
              {result.usage.prompt_tokens}
            </span>
            <span>
              <span className="font-medium text-zinc-600 dark:text-zinc-400">Cost</span>{' '}
              {result.usage.cost === null ? 'not reported' : formatUsd(result.usage.cost)}
            </span>
          </div>
          <ol aria-label="Vectors" className="flex flex-col gap-1 text-xs">
            {result.data.map((entry) => {
              const summary = summarizeVector(entry.embedding);
              const more = summary.sparse
                ? summary.nonZero > summary.shown.length
                : summary.dimensions > summary.shown.length;
              return (
                <li key={entry.index} className="min-w-0">
                  <span className="font-medium">Input {entry.index + 1}</span>{' '}
                  <span className="text-zinc-600 dark:text-zinc-400">
                    ({sent.input[entry.index] ?? ''})
                  </span>
                  : {summary.dimensions} dimensions · norm {valueFormat.format(summary.norm)} ·{' '}
                  {summary.sparse && <>{summary.nonZero} non-zero: </>}
                  <code className="font-mono break-all">
                    [
                    {summary.shown
                      .map(({ index, value }) =>
                        summary.sparse
                          ? `#${index} ${valueFormat.format(value)}`
                          : valueFormat.format(value),
                      )
                      .join(', ')}
                    {more ? ', …' : ''}]
                  </code>
                </li>
              );
            })}
          </ol>
          {result.data.length > 1 && (
            <SimilarityMatrix vectors={result.data.map((entry) => entry.embedding)} />
          )}
        </section>
      )}
    </section>
  );
}
