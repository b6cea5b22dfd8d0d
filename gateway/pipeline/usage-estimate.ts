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
 * The longest run of one kind of character (non-space, or space) handed to the tokenizer whole.
 * BPE's work grows with the square of a piece's length: 64 KiB of one letter takes 3 s, 256 KiB
 * 47 s, all of it on the event loop every tenant shares. No real word is this long; a longer run
 * is counted in slices of it, which moves the count by a token or so per slice at most.
 */
export const LONGEST_PIECE = 256;
const longRun = new RegExp(`\\S{${LONGEST_PIECE + 1},}|\\s{${LONGEST_PIECE + 1},}`, 'g');

/**
 * How much text is counted exactly; the rest of a longer text is counted at the same rate. A
 * count is an estimate either way, and counting is linear but not free (about 30 ms for this much
 * base64, on the event loop every tenant shares), while an answer may be 64 MiB.
 */
export const EXACT_CHARACTERS = 256 * 1024;

/** A real count where the tokenizer is loaded; else about one token per three characters. */
export function countTextTokens(text: string): number {
  if (text === '') return 0;
  if (!encoder) return Math.ceil(text.length / 3);
  if (text.length <= EXACT_CHARACTERS) return countPieces(encoder, text);
  const sample = text.slice(0, EXACT_CHARACTERS);
  return Math.ceil((countPieces(encoder, sample) * text.length) / sample.length);
}

/** The tokenizer's count, with long runs of one kind of character counted in slices. */
export function countPieces(tokenizer: Encoder, text: string): number {
  let total = 0;
  let last = 0;
  for (const run of text.matchAll(longRun)) {
    if (run.index > last) total += tokenizer.countTokens(text.slice(last, run.index));
    for (let at = 0; at < run[0].length; at += LONGEST_PIECE) {
      total += tokenizer.countTokens(run[0].slice(at, at + LONGEST_PIECE));
    }
    last = run.index + run[0].length;
  }
  if (last < text.length) total += tokenizer.countTokens(text.slice(last));
  return total;
}

/** What vendors charge an image at most (a large image on the vendor that charges most per tile). */
export const IMAGE_TOKENS_RESERVED = 1_600;
/** Per request and per message, vendors add tokens of their own (roles, separators, priming). */
const REQUEST_OVERHEAD_TOKENS = 32;
const MESSAGE_OVERHEAD_TOKENS = 8;
/** Vendors add a hidden system prompt when tools are defined (Anthropic's is several hundred). */
const TOOLS_OVERHEAD_TOKENS = 600;

/**
 * An upper bound on what an upstream will count for this prompt, cheap to compute on any size:
 * one token per two characters is above what BPE tokenizers give for prose, code or CJK text.
 * Reserving more than is used costs nothing (the reservation is released); reserving less could
 * let an upstream's count take a key past its limit.
 */
export function conservativePromptTokens(request: CanonicalRequest): number {
  let characters = request.system?.length ?? 0;
  let fixed = REQUEST_OVERHEAD_TOKENS + (request.system ? MESSAGE_OVERHEAD_TOKENS : 0);
  if (request.tools.length > 0) fixed += TOOLS_OVERHEAD_TOKENS;
  for (const message of request.messages) {
    fixed += MESSAGE_OVERHEAD_TOKENS;
    for (const part of message.parts) {
      if (part.type === 'text') characters += part.text.length;
      else if (part.type === 'image') fixed += IMAGE_TOKENS_RESERVED;
      else if (part.type === 'tool_call') characters += part.name.length + part.arguments.length;
      else characters += part.content.length;
    }
  }
  for (const tool of request.tools) characters += JSON.stringify(tool).length;
  return fixed + Math.ceil(characters / 2);
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
      else pieces.push(part.content);
    }
  }
  for (const tool of request.tools) pieces.push(JSON.stringify(tool));
  return { text: pieces.join('\n'), images };
}
