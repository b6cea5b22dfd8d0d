/**
 * What the embeddings view computes from the returned vectors, in the browser: each pair's
 * cosine similarity. Pure functions, so the matrix is checked against hand-worked values.
 */
import type { CatalogModel } from '../../../../contract/workbench-api';

/** An embedding model: its catalog entry lists `embeddings` among its output modalities. */
export function isEmbeddingModel(model: CatalogModel | undefined): boolean {
  return model?.output_modalities.includes('embeddings') ?? false;
}

/**
 * The cosine of the angle between two vectors: 1 for the same direction, 0 for unrelated, -1
 * for opposite. Null when they cannot be compared (lengths differ, or one is all zeros).
 */
export function cosineSimilarity(left: readonly number[], right: readonly number[]): number | null {
  if (left.length !== right.length || left.length === 0) return null;
  let dot = 0;
  let leftNorm = 0;
  let rightNorm = 0;
  for (let index = 0; index < left.length; index += 1) {
    const a = left[index] ?? 0;
    const b = right[index] ?? 0;
    dot += a * b;
    leftNorm += a * a;
    rightNorm += b * b;
  }
  if (leftNorm === 0 || rightNorm === 0) return null;
  return dot / Math.sqrt(leftNorm * rightNorm);
}

/** Every pair's similarity: `matrix[row][column]`, symmetric, 1 on the diagonal. */
export function similarityMatrix(vectors: readonly (readonly number[])[]): (number | null)[][] {
  return vectors.map((row) => vectors.map((column) => cosineSimilarity(row, column)));
}

/** A similarity to 3 decimals; a rounding that would show `-0.000` shows `0.000`. */
export function formatSimilarity(value: number | null): string {
  if (value === null) return '—';
  const text = value.toFixed(3);
  return text === '-0.000' ? '0.000' : text;
}
