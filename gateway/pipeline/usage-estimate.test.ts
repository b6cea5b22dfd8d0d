/**
 * The gateway's own token counts. The one charged when an upstream reports none: the real
 * tokenizer's count for ordinary text, taken in small windows (BPE's work grows with the square of
 * a piece's length, on the event loop every tenant shares), and, of a long text, windows at random
 * places counted and the rest taken at their rate. And the bound a prompt is reserved against,
 * which no tokenizer's count may pass, whatever the script.
 */
import { countTokens } from 'gpt-tokenizer';
import { countTokens as cl100kTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as p50kTokens } from 'gpt-tokenizer/encoding/p50k_base';
import type { CanonicalRequest } from '../canonical/model';
import {
  conservativePromptTokens,
  conservativeTextTokens,
  countPieces,
  countTextTokens,
  EXACT_CHARACTERS,
  IMAGE_TOKENS_RESERVED,
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
    // The reference is the count window by window: handed whole, this one piece took the tokenizer
    // 17 to 30 s (the very cost windows avoid), past the test's time limit on a busy machine.
    const tokenizer = { countTokens };
    const exact =
      countPieces(tokenizer, dense) + countPieces(tokenizer, ' '.repeat(EXACT_CHARACTERS * 2));
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

/** A repeatable pseudo-random source, so a failing sample can be reproduced. */
function seeded(seed: number) {
  return () => ((seed = (seed * 16_807) % 2_147_483_647) - 1) / 2_147_483_646;
}

/** `length` characters drawn from `alphabet` (code points, so emoji stay whole). */
function drawn(alphabet: string, length: number, random: () => number): string {
  const characters = [...alphabet];
  return Array.from({ length }, () => characters[Math.floor(random() * characters.length)]!).join(
    '',
  );
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const PROSE =
  'Once upon a time, in a small village nestled between rolling hills, there lived an old ' +
  "clockmaker named Elias. Every morning he opened his shop at seven o'clock, brewed a pot of " +
  'strong coffee, and began repairing the watches that neighbours brought him.\n';

/** Texts that tokenize densely, each of a kind the audit of the old bound (one token per two
 * characters) found it below, or that a tokenizer splits a character at a time. */
const random = seeded(42);
const DENSE_TEXTS: Array<[string, string]> = [
  [
    'Chinese',
    '我们今天讨论一下模型网关的计费问题以及上游提供商的重试策略，请详细说明。'.repeat(20),
  ],
  ['Japanese', 'これはテストです。東京の天気はどうですか？明日は雨が降るでしょう。'.repeat(20)],
  ['emoji', '😀🎉🚀🔥💯'.repeat(50)],
  ['emoji with modifiers and joiners', '👩🏽‍💻👨‍👩‍👧‍👦🏳️‍🌈'.repeat(40)],
  ['rare CJK', '龘靐齉爩鱻麤'.repeat(30)],
  ['random CJK', drawn('㐀㑇㒐㓙㔢㕫㖴㗽㙆㚏㛘㜡㝪㞳㟼䀅䁎䂗䃠䄩', 600, random)],
  ['Cyrillic', 'Съешь же ещё этих мягких французских булок, да выпей чаю. '.repeat(20)],
  ['Arabic', 'مرحبا بكم في بوابة النماذج، كيف يمكنني مساعدتك اليوم؟ '.repeat(20)],
  ['Hindi', 'नमस्ते, आज मौसम कैसा है? मुझे एक कप चाय चाहिए। '.repeat(20)],
  [
    'hex',
    Array.from({ length: 400 }, (_, index) => ((index * 2_654_435_761) >>> 0).toString(16)).join(
      '',
    ),
  ],
  ['random hex', drawn('0123456789abcdef', 3_000, random)],
  ['base64', 'aGVsbG8gd29ybGQ/Zm9vPWJhcg=='.repeat(40)],
  ['random base64', drawn(LOWER + LOWER.toUpperCase() + '0123456789+/', 3_000, random)],
  ['digits between spaces', drawn('0123456789', 1_500, random).split('').join(' ')],
  [
    'letters and marks alternating',
    drawn(LOWER, 1_000, random).replace(/./g, (letter) => letter + drawn(PUNCTUATION, 1, random)),
  ],
  [
    'words of rare letters',
    Array.from({ length: 400 }, () => drawn('qxzjvkw', 4, random)).join(' '),
  ],
  [
    'single letters between spaces',
    drawn(LOWER + LOWER.toUpperCase(), 1_500, random)
      .split('')
      .join(' '),
  ],
  ['punctuation', drawn(PUNCTUATION, 3_000, random)],
  [
    'printable ASCII',
    drawn(
      Array.from({ length: 95 }, (_, index) => String.fromCharCode(32 + index)).join(''),
      3_000,
      random,
    ),
  ],
  ['whitespace', drawn(' \t\n\r', 3_000, random)],
  [
    'code',
    'function add(a, b) {\n  return a + b; // sum\n}\nconst x = [1, 2, 3].map((v) => v * 2);\n'.repeat(
      20,
    ),
  ],
  ['prose', PROSE.repeat(10)],
];

describe('conservativeTextTokens', () => {
  it.each(DENSE_TEXTS)(
    'is at least what o200k, cl100k and GPT-2’s 50k vocabulary count for %s',
    (_, text) => {
      const bound = conservativeTextTokens(text);
      expect(bound).toBeGreaterThanOrEqual(countTokens(text));
      expect(bound).toBeGreaterThanOrEqual(cl100kTokens(text));
      expect(bound).toBeGreaterThanOrEqual(p50kTokens(text));
    },
  );

  it('is one token a UTF-8 byte, but for a space before an ASCII letter', () => {
    for (const text of ['東京', '😀', 'é', '1 2', 'a\tb', '{"a": 1}']) {
      expect(conservativeTextTokens(text)).toBe(Buffer.byteLength(text, 'utf8'));
    }
    expect(conservativeTextTokens('Hello there, World')).toBe('Hello there, World'.length - 2);
    expect(conservativeTextTokens('')).toBe(0);
  });

  it('keeps prose within five times its real count, so a nearly spent key is not refused for nothing', () => {
    const prose = PROSE.repeat(10);
    expect(conservativeTextTokens(prose)).toBeLessThan(5 * countTokens(prose));
  });
});

describe('conservativePromptTokens', () => {
  it('bounds every part of a prompt: system, text, tool calls and results, tools, images', () => {
    const rare = '龘靐齉爩鱻麤'.repeat(60);
    const prompt: CanonicalRequest = {
      model: 'test/model',
      system: rare,
      messages: [
        {
          role: 'user',
          parts: [
            { type: 'text', text: rare },
            { type: 'image', mediaType: 'image/png', url: 'https://example.com/a.png' },
          ],
        },
        {
          role: 'assistant',
          parts: [
            {
              type: 'tool_call',
              id: 'call_1',
              name: 'lookup',
              arguments: JSON.stringify({ query: rare }),
            },
          ],
        },
        { role: 'tool', parts: [{ type: 'tool_result', toolCallId: 'call_1', content: rare }] },
      ],
      maxTokens: null,
      temperature: null,
      topP: null,
      stop: [],
      seed: null,
      tools: [{ name: 'lookup', description: rare, parameters: { type: 'object' } }],
      toolChoice: 'auto',
      stream: false,
    };
    // Each of the five pieces of rare CJK at least as o200k counts it, and the image at its reserve.
    expect(conservativePromptTokens(prompt)).toBeGreaterThanOrEqual(
      5 * countTokens(rare) + IMAGE_TOKENS_RESERVED,
    );
  });
});
