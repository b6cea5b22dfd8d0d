/**
 * What the embeddings result says of one vector: its size, its length (norm), and its values —
 * the first few of a dense vector, but the non-zero ones, with their positions, of a sparse one,
 * whose first values are mostly zeros and say nothing.
 */
export interface VectorSummary {
  dimensions: number;
  norm: number;
  nonZero: number;
  /** A vector whose values are mostly zeros. */
  sparse: boolean;
  /** The values to show, with their 0-based positions. */
  shown: Array<{ index: number; value: number }>;
}

/** How many values are shown. */
export const shownValues = 5;

export function summarizeVector(vector: number[]): VectorSummary {
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  const nonZeroEntries = vector.flatMap((value, index) => (value !== 0 ? [{ index, value }] : []));
  const sparse = vector.length > shownValues && nonZeroEntries.length * 2 < vector.length;
  const shown = sparse
    ? nonZeroEntries.slice(0, shownValues)
    : vector.slice(0, shownValues).map((value, index) => ({ index, value }));
  return { dimensions: vector.length, norm, nonZero: nonZeroEntries.length, sparse, shown };
}
