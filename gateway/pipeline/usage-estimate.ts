/**
 * Token counts the gateway makes itself: the conservative prompt estimate an upstream request is
 * reserved against, and the count charged when an upstream reports no usage (or none for text it
 * did deliver). The latter uses a real BPE tokenizer (`gpt-tokenizer`, o200k); it is loaded
 * only when upstream providers are configured, so the embedded gateway does not pay for it.
 */
import type { CanonicalRequest } from '../canonical/model';

export type Encoder = { countTokens(text: string): number };
let encoder: Encoder | null = null;

/** Loads the tokenizer; until it is loaded, counts fall back to a conservative estimate. */
export async function loadTokenizer(): Promise<void> {
  if (encoder) return;
  const module = await import('gpt-tokenizer');
  encoder = { countTokens: (text) => module.countTokens(text) };
}

/**
 * The most text handed to the tokenizer at once. BPE's work grows with the square of a piece's
 * length (64 KiB of one letter took 3 s, 256 KiB 47 s, and a piece need not be one kind of
 * character: `/` and line breaks alternating make one piece too), all of it on the event loop
 * every tenant shares. So text is counted in windows of this many characters, each ended before a
 * space where there is one (the tokenizer joins a space to the word after it, so prose counts the
 * same), which bounds the work of every window whatever the text.
 */
export const WINDOW_CHARACTERS = 64;

/**
 * How much text is counted; of a longer one, windows at random places adding up to this much are
 * counted and the rest is taken at their rate. Random, so that no text can put cheap filler where
 * the count looks and dense text where it does not. The densest text the tokenizer has not seen
 * before (CJK) costs it about 2 ms a KiB, so this bounds a count to about 30 ms.
 */
export const EXACT_CHARACTERS = 16 * 1024;

/** A real count where the tokenizer is loaded; else about one token per three characters. */
export function countTextTokens(text: string, random: () => number = Math.random): number {
  if (text === '') return 0;
  if (!encoder) return Math.ceil(text.length / 3);
  if (text.length <= EXACT_CHARACTERS) return countPieces(encoder, text);
  let tokens = 0;
  let counted = 0;
  while (counted < EXACT_CHARACTERS) {
    const start = Math.floor(random() * (text.length - WINDOW_CHARACTERS));
    const end = windowEnd(text, start);
    tokens += encoder.countTokens(text.slice(start, end));
    counted += end - start;
  }
  return Math.ceil((tokens * text.length) / counted);
}

/** The tokenizer's count of `text`, taken window by window (`WINDOW_CHARACTERS`). */
export function countPieces(tokenizer: Encoder, text: string): number {
  let total = 0;
  for (let start = 0; start < text.length;) {
    const end = windowEnd(text, start);
    total += tokenizer.countTokens(text.slice(start, end));
    start = end;
  }
  return total;
}

/** Where the window from `start` ends: before its last space past its middle, else at its size. */
function windowEnd(text: string, start: number): number {
  const limit = start + WINDOW_CHARACTERS;
  if (limit >= text.length) return text.length;
  for (let at = limit; at > start + WINDOW_CHARACTERS / 2; at -= 1) {
    if (isSpace(text.charCodeAt(at))) return at;
  }
  return limit;
}

/** Space, tab, line feed and carriage return: where windows end, so words stay whole. */
const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 13;

/** What vendors charge an image at most (a large image on the vendor that charges most per tile). */
export const IMAGE_TOKENS_RESERVED = 1_600;
/** Per request and per message, vendors add tokens of their own (roles, separators, priming). */
const REQUEST_OVERHEAD_TOKENS = 32;
const MESSAGE_OVERHEAD_TOKENS = 8;
/** Vendors add a hidden system prompt when tools are defined (Anthropic's is several hundred). */
const TOOLS_OVERHEAD_TOKENS = 600;

/**
 * An upper bound on what any upstream tokenizer makes of `text`, in one pass over it: one token
 * per UTF-8 byte, the most a byte-level BPE tokenizer (OpenAI's, Anthropic's, Llama's) or a
 * SentencePiece one with byte fallback (Gemini's) can give, since each token holds at least one
 * byte. No rate per character below that is a bound: o200k gives a token to every character of
 * digits between spaces, 0.67 a character to Chinese and 2.2 to rare CJK characters, and GPT-2's
 * 50k vocabulary nearly 0.9 a letter to words of rare letters and 1 a character to letters and
 * marks alternating. The one exception keeps prose near 4 times its real count rather than 5: a
 * space before an ASCII letter is free. Every vocabulary has a token for a space and each letter,
 * and BPE merges while any neighbouring pair makes a token, so a word left in single letters has
 * its space merged into the first, and a word that merged anywhere has a token to spare for it.
 */
export function conservativeTextTokens(text: string): number {
  let tokens = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) {
      if (code !== 32 || !isAsciiLetter(text.charCodeAt(index + 1))) tokens += 1;
    } else if (code < 0x800) tokens += 2;
    // A surrogate pair is one character of four bytes: two for each half.
    else if (code >= 0xd800 && code <= 0xdfff) tokens += 2;
    else tokens += 3;
  }
  return tokens;
}

const isAsciiLetter = (code: number) =>
  (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a);

/**
 * An upper bound on what an upstream will count for this prompt (`conservativeTextTokens` of its
 * text, plus the vendors' overheads), cheap to compute on any size. Reserving more than is used
 * costs nothing once the request ends (the reservation is released), though while it runs it can
 * leave a nearly spent key a 402; reserving less would let an upstream's count go uncharged.
 */
export function conservativePromptTokens(request: CanonicalRequest): number {
  let tokens = REQUEST_OVERHEAD_TOKENS;
  if (request.system) tokens += MESSAGE_OVERHEAD_TOKENS + conservativeTextTokens(request.system);
  if (request.tools.length > 0) tokens += TOOLS_OVERHEAD_TOKENS;
  for (const message of request.messages) {
    tokens += MESSAGE_OVERHEAD_TOKENS;
    for (const part of message.parts) {
      if (part.type === 'text') tokens += conservativeTextTokens(part.text);
      else if (part.type === 'image') tokens += IMAGE_TOKENS_RESERVED;
      else if (part.type === 'tool_call')
        tokens += conservativeTextTokens(part.name) + conservativeTextTokens(part.arguments);
      else if (part.type === 'reasoning') tokens += conservativeTextTokens(part.text);
      else tokens += conservativeTextTokens(part.content);
    }
  }
  for (const tool of request.tools) tokens += conservativeTextTokens(JSON.stringify(tool));
  return tokens;
}

/** The prompt as text, for counting it when the upstream did not. */
export function promptText(request: CanonicalRequest): { text: string; images: number } {
  const pieces: string[] = request.system ? [request.system] : [];
  let images = 0;
  for (const message of request.messages) {
    for (const part of message.parts) {
      if (part.type === 'text') pieces.push(part.text);
      else if (part.type === 'image') images += 1;
      else if (part.type === 'tool_call') pieces.push(part.name, part.arguments);
      else if (part.type === 'reasoning') pieces.push(part.text);
      else pieces.push(part.content);
    }
  }
  for (const tool of request.tools) pieces.push(JSON.stringify(tool));
  return { text: pieces.join('\n'), images };
}
