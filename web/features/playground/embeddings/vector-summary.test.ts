import { summarizeVector } from './vector-summary';

describe('summarizeVector', () => {
  it('gives a dense vector’s norm and first values', () => {
    const summary = summarizeVector([0.6, 0.8, 0]);
    expect(summary.norm).toBeCloseTo(1, 12);
    expect(summary.sparse).toBe(false);
    expect(summary.shown.map((entry) => entry.value)).toEqual([0.6, 0.8, 0]);
  });

  it('shows a sparse vector’s non-zero values with their positions, not its leading zeros', () => {
    const vector = Array.from({ length: 100 }, () => 0);
    vector[17] = 3;
    vector[42] = -4;
    const summary = summarizeVector(vector);
    expect(summary).toMatchObject({ dimensions: 100, nonZero: 2, sparse: true, norm: 5 });
    expect(summary.shown).toEqual([
      { index: 17, value: 3 },
      { index: 42, value: -4 },
    ]);
  });
});
