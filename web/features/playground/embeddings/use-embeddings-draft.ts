/**
 * The embeddings view's inputs and `dimensions`, kept by the page so "Get code" builds the same
 * request the Embed button sends. Starts with one input: a single text is the common case, and
 * Add input brings more to compare.
 */
import { useState } from 'react';
import { maxEmbeddingInputs, type EmbeddingsRequest } from '../../../../contract/workbench-api';

export const minimumEmbeddingInputs = 1;

export interface EmbeddingsDraft {
  inputs: string[];
  dimensionsText: string;
}

/** The request for `model`, or what to fix first. */
export function embeddingsRequestOf(
  draft: EmbeddingsDraft,
  model: string,
): { ok: true; request: EmbeddingsRequest['request'] } | { ok: false; problem: string } {
  const input = draft.inputs.map((text) => text.trim());
  if (input.some((text) => text === '')) {
    return {
      ok: false,
      problem:
        input.length === 1
          ? 'Write the text to embed first.'
          : 'Fill in every input, or remove the empty one.',
    };
  }
  const dimensionsText = draft.dimensionsText.trim();
  if (dimensionsText === '') return { ok: true, request: { model, input } };
  const dimensions = Number(dimensionsText);
  if (!/^\d+$/.test(dimensionsText) || dimensions < 1) {
    return { ok: false, problem: 'Dimensions must be a whole number of 1 or more, or empty.' };
  }
  return { ok: true, request: { model, input, dimensions } };
}

export function useEmbeddingsDraft() {
  const [draft, setDraft] = useState<EmbeddingsDraft>({ inputs: [''], dimensionsText: '' });
  return {
    draft,
    setInput: (index: number, text: string) =>
      setDraft((current) => ({
        ...current,
        inputs: current.inputs.map((old, other) => (other === index ? text : old)),
      })),
    addInput: () =>
      setDraft((current) =>
        current.inputs.length >= maxEmbeddingInputs
          ? current
          : { ...current, inputs: [...current.inputs, ''] },
      ),
    removeInput: (index: number) =>
      setDraft((current) =>
        current.inputs.length <= minimumEmbeddingInputs
          ? current
          : { ...current, inputs: current.inputs.filter((_, other) => other !== index) },
      ),
    setDimensionsText: (dimensionsText: string) =>
      setDraft((current) => ({ ...current, dimensionsText })),
  };
}

export type EmbeddingsDraftState = ReturnType<typeof useEmbeddingsDraft>;
