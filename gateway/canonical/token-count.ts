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

export function countTokens(text: string): number {
  return tokenize(text).length;
}

/** A fixed cost per image, as vendors charge tiles: independent of its bytes. */
export const IMAGE_TOKENS = 85;
const MESSAGE_OVERHEAD_TOKENS = 4;

export function countPromptTokens(request: CanonicalRequest): number {
  let total = request.system ? countTokens(request.system) + MESSAGE_OVERHEAD_TOKENS : 0;
  for (const message of request.messages) {
    total += MESSAGE_OVERHEAD_TOKENS;
    for (const part of message.parts) {
      if (part.type === 'text') total += countTokens(part.text);
      else if (part.type === 'image') total += IMAGE_TOKENS;
      else if (part.type === 'tool_call')
        total += countTokens(part.name) + countTokens(part.arguments);
      else total += countTokens(part.content);
    }
  }
  for (const tool of request.tools) total += countTokens(JSON.stringify(tool));
  return total;
}
