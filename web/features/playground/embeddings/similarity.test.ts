import { describe, expect, it } from 'vitest';
import { catalogModel } from '../test-fixtures';
import {
  cosineSimilarity,
  formatSimilarity,
  isEmbeddingModel,
  similarityMatrix,
} from './similarity';

describe('cosineSimilarity', () => {
  it('is 1 for the same direction, 0 for orthogonal, -1 for opposite, whatever the length', () => {
    expect(cosineSimilarity([1, 2, 3], [2, 4, 6])).toBeCloseTo(1, 12);
    expect(cosineSimilarity([1, 0], [0, 5])).toBe(0);
    expect(cosineSimilarity([1, 1], [-2, -2])).toBeCloseTo(-1, 12);
  });

  it('matches a hand-worked value', () => {
    // (1*2 + 2*1) / (sqrt(5) * sqrt(5)) = 4/5
    expect(cosineSimilarity([1, 2], [2, 1])).toBeCloseTo(0.8, 12);
  });

  it('is null for vectors it cannot compare', () => {
    expect(cosineSimilarity([1, 2], [1, 2, 3])).toBeNull();
    expect(cosineSimilarity([0, 0], [1, 2])).toBeNull();
    expect(cosineSimilarity([], [])).toBeNull();
  });
});

describe('similarityMatrix', () => {
  it('is symmetric with ones on the diagonal', () => {
    const matrix = similarityMatrix([
      [1, 0],
      [0.6, 0.8],
      [0, 1],
    ]);
    expect(matrix.map((row) => row.map(formatSimilarity))).toEqual([
      ['1.000', '0.600', '0.000'],
      ['0.600', '1.000', '0.800'],
      ['0.000', '0.800', '1.000'],
    ]);
  });
});

describe('formatSimilarity', () => {
  it('shows three decimals, no negative zero, and a dash for none', () => {
    expect(formatSimilarity(0.12345)).toBe('0.123');
    expect(formatSimilarity(-0.0001)).toBe('0.000');
    expect(formatSimilarity(null)).toBe('—');
  });
});

describe('isEmbeddingModel', () => {
  it('reads the catalog output modalities', () => {
    expect(
      isEmbeddingModel(catalogModel({ id: 'sim/embed-small', output_modalities: ['embeddings'] })),
    ).toBe(true);
    expect(isEmbeddingModel(catalogModel({ id: 'sim/chat-standard' }))).toBe(false);
    expect(isEmbeddingModel(undefined)).toBe(false);
  });
});
