/**
 * A small, deterministic token counter: a word (with its leading space) or a punctuation mark is
 * one token. It is not any vendor's tokenizer, but it is the same on every form and for admission
 * and billing alike, so what is estimated before a request is what is charged after.
 */
import type { CanonicalRequest } from './model';

const TOKEN_PATTERN = /\s*[\p{L}\p{N}'_]+|\s*[^\s\p{L}\p{N}'_]|\s+$/gu;

/** Splits text into tokens that join back to the same text. */
export function tokenize(text: string): string[] {
  return text.match(TOKEN_PATTERN) ?? [];
}

/**
 * The number of tokens, or `limit` once it is reached: counting a huge prompt stops as soon as it
 * is known to pass the model's context, so a 20 MiB body costs no more than a full context.
 */
export function countTokens(text: string, limit = Infinity): number {
  if (limit === Infinity) return tokenize(text).length;
  const pattern = new RegExp(TOKEN_PATTERN.source, 'gu');
  let count = 0;
  while (count < limit && pattern.exec(text) !== null) count += 1;
  return count;
}

/** A fixed cost per image, as vendors charge tiles: independent of its bytes. */
export const IMAGE_TOKENS = 85;
const MESSAGE_OVERHEAD_TOKENS = 4;

/** The prompt's tokens; with a `limit`, counting stops (returning a value ≥ limit) once past it. */
export function countPromptTokens(request: CanonicalRequest, limit = Infinity): number {
  const left = (total: number) => limit - total;
  let total = request.system ? countTokens(request.system, limit) + MESSAGE_OVERHEAD_TOKENS : 0;
  for (const message of request.messages) {
    if (total >= limit) return total;
    total += MESSAGE_OVERHEAD_TOKENS;
    for (const part of message.parts) {
      if (part.type === 'text') total += countTokens(part.text, left(total));
      else if (part.type === 'image') total += IMAGE_TOKENS;
      else if (part.type === 'tool_call')
        total += countTokens(part.name) + countTokens(part.arguments, left(total));
      else if (part.type === 'reasoning') total += countTokens(part.text, left(total));
      else total += countTokens(part.content, left(total));
    }
  }
  for (const tool of request.tools) total += countTokens(JSON.stringify(tool));
  return total;
}
