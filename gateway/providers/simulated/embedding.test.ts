import { SIMULATED_EMBEDDING_DIMENSIONS, simulatedEmbedding } from './embedding';

const norm = (vector: number[]) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
const cosine = (a: number[], b: number[]) =>
  a.reduce((sum, value, index) => sum + value * b[index]!, 0) / (norm(a) * norm(b));

describe('the simulated embedding', () => {
  it('gives the same text the same vector, every time', () => {
    const text = 'The gateway reserves the worst case before it calls a provider.';
    expect(simulatedEmbedding(text)).toEqual(simulatedEmbedding(text));
    expect(simulatedEmbedding([1, 2, 3])).toEqual(simulatedEmbedding([1, 2, 3]));
  });

  it('is a unit vector of the full dimension, also for text with no words', () => {
    for (const input of ['budgets and keys', '?!', [42, 7]]) {
      const vector = simulatedEmbedding(input);
      expect(vector).toHaveLength(SIMULATED_EMBEDDING_DIMENSIONS);
      expect(norm(vector)).toBeCloseTo(1, 12);
    }
  });

  it('puts close texts closer than unrelated ones, so retrieval finds the right document', () => {
    const query = simulatedEmbedding('How is a streamed answer charged?');
    const documents = [
      'Streamed answers are charged for what was delivered.',
      'The catalog lists every model with its price.',
      'Keys can be disabled, enabled and rotated.',
    ].map((text) => simulatedEmbedding(text));
    const scores = documents.map((document) => cosine(query, document));
    expect(scores.indexOf(Math.max(...scores))).toBe(0);
    // A typo changes a word, not most of its trigrams.
    expect(
      cosine(
        simulatedEmbedding('settlement of charges'),
        simulatedEmbedding('setlement of charges'),
      ),
    ).toBeGreaterThan(0.6);
    expect(cosine(simulatedEmbedding('settlement of charges'), documents[1]!)).toBeLessThan(0.3);
  });

  it('cuts to the dimensions asked for and normalises again', () => {
    const full = simulatedEmbedding('short vectors please');
    const short = simulatedEmbedding('short vectors please', 64);
    expect(short).toHaveLength(64);
    expect(norm(short)).toBeCloseTo(1, 12);
    const scale = norm(full.slice(0, 64));
    short.forEach((value, index) => expect(value).toBeCloseTo(full[index]! / scale, 12));
  });

  it('refuses more dimensions than it makes, with a 400', () => {
    expect(() => simulatedEmbedding('x', SIMULATED_EMBEDDING_DIMENSIONS + 1)).toThrow(
      expect.objectContaining({ status: 400 }),
    );
  });
});
