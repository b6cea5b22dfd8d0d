/**
 * The gateway's own token count (charged when an upstream reports none): the real tokenizer on
 * ordinary text, long runs of one kind of character counted in slices (BPE's work grows with the
 * square of a piece's length, on the event loop every tenant shares), and long texts counted
 * exactly up to a bound and at the same rate after it.
 */
import { countTokens } from 'gpt-tokenizer';
import {
  countPieces,
  countTextTokens,
  EXACT_CHARACTERS,
  loadTokenizer,
  LONGEST_PIECE,
} from './usage-estimate';

beforeAll(async () => {
  await loadTokenizer();
});

describe('countTextTokens', () => {
  it('is the tokenizer’s own count for ordinary text', () => {
    const prose = 'The quick brown fox jumps over the lazy dog. Ça va? 東京 123456 '.repeat(200);
    expect(countTextTokens(prose)).toBe(countTokens(prose));
    expect(countTextTokens('')).toBe(0);
  });

  it.each([
    ['one letter', 'x'],
    ['spaces', ' '],
    ['one mark', '!'],
  ])('counts a long run of %s in slices, as the tokenizer counts each slice', (_, character) => {
    const slice = character.repeat(LONGEST_PIECE);
    const run = slice.repeat(40);
    const text = `before ${run} after`;
    expect(countTextTokens(text)).toBe(
      countTokens('before ') + 40 * countTokens(slice) + countTokens(' after'),
    );
  });

  it('never hands the tokenizer a run longer than a slice, and loses no character', () => {
    const pieces: string[] = [];
    const recording = { countTokens: (piece: string) => (pieces.push(piece), 1) };
    const text = `a ${'x'.repeat(5_000)} b${' '.repeat(1_000)}c ${'!'.repeat(LONGEST_PIECE)} end`;
    expect(countPieces(recording, text)).toBe(pieces.length);
    expect(pieces.join('')).toBe(text);
    const runs = pieces.flatMap((piece) => piece.match(/\S+|\s+/g) ?? []);
    expect(Math.max(...runs.map((run) => run.length))).toBe(LONGEST_PIECE);
  });

  it('counts the first part of a long text exactly and the rest at the same rate', () => {
    const sentence = 'Tokens are counted once and charged once. ';
    const text = sentence.repeat(Math.ceil((EXACT_CHARACTERS * 3) / sentence.length));
    const sample = text.slice(0, EXACT_CHARACTERS);
    const expected = Math.ceil((countTokens(sample) * text.length) / EXACT_CHARACTERS);
    expect(countTextTokens(text)).toBe(expected);
    // Within a token per sentence of the exact count, for text that repeats itself.
    const exact = countTokens(text);
    expect(Math.abs(countTextTokens(text) - exact)).toBeLessThan(text.length / sentence.length);
  });
});
