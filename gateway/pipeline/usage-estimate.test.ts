/**
 * The gateway's own token count (charged when an upstream reports none): the real tokenizer's
 * count for ordinary text, taken in small windows (BPE's work grows with the square of a piece's
 * length, on the event loop every tenant shares), and, of a long text, windows at random places
 * counted and the rest taken at their rate.
 */
import { countTokens } from 'gpt-tokenizer';
import {
  countPieces,
  countTextTokens,
  EXACT_CHARACTERS,
  loadTokenizer,
  WINDOW_CHARACTERS,
} from './usage-estimate';

beforeAll(async () => {
  await loadTokenizer();
});

/** A tokenizer that records what it is handed, one token per piece. */
function recordingTokenizer() {
  const pieces: string[] = [];
  return { pieces, countTokens: (piece: string) => (pieces.push(piece), 1) };
}

describe('countTextTokens', () => {
  it('is the tokenizer’s own count for ordinary text', () => {
    const prose = 'The quick brown fox jumps over the lazy dog. Ça va? 東京 123456 '.repeat(100);
    expect(prose.length).toBeLessThan(EXACT_CHARACTERS);
    expect(countTextTokens(prose)).toBe(countTokens(prose));
    expect(countTextTokens('')).toBe(0);
  });

  it.each([
    ['one letter', 'x'.repeat(5_000)],
    ['a mark and line breaks, which the tokenizer joins into one piece', '/\r\n'.repeat(2_000)],
    ['spaces', ' '.repeat(3_000)],
    ['prose', 'Tokens are counted once and charged once. '.repeat(100)],
  ])('never hands the tokenizer more than a window of %s, and loses no character', (_, text) => {
    const recording = recordingTokenizer();
    expect(countPieces(recording, text)).toBe(recording.pieces.length);
    expect(recording.pieces.join('')).toBe(text);
    expect(Math.max(...recording.pieces.map((piece) => piece.length))).toBeLessThanOrEqual(
      WINDOW_CHARACTERS,
    );
  });

  it('counts a long text from windows spread over all of it, not from its beginning', () => {
    // Cheap filler first, dense text after: a count of the beginning alone would be far too low.
    const dense = Array.from({ length: 4 * EXACT_CHARACTERS }, (_, index) =>
      String.fromCharCode(0x4e00 + ((index * 7919) % 20_000)),
    ).join('');
    const text = ' '.repeat(EXACT_CHARACTERS * 2) + dense;
    const exact = countTokens(dense) + countTokens(' '.repeat(EXACT_CHARACTERS * 2));
    let seed = 1;
    const random = () => ((seed = (seed * 16_807) % 2_147_483_647) - 1) / 2_147_483_646;
    const estimate = countTextTokens(text, random);
    expect(estimate).toBeGreaterThan(exact * 0.85);
    expect(estimate).toBeLessThan(exact * 1.15);
  });

  it('estimates a long, even text within a few percent of its exact count', () => {
    const text = 'word '.repeat(EXACT_CHARACTERS);
    const estimate = countTextTokens(text);
    expect(Math.abs(estimate - countTokens(text)) / countTokens(text)).toBeLessThan(0.05);
  });
});
