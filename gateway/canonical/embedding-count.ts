/**
 * The gateway's own count of an embeddings request's tokens: a text counts as the prompt
 * counter counts text (token-count.ts), token ids count one each. Admission reserves by it, the
 * rate limits admit by it, and the simulated provider charges it exactly.
 */
import type { EmbeddingInput } from './model';
import { countTokens } from './token-count';

export const embeddingInputTokens = (inputs: EmbeddingInput[]): number =>
  inputs.reduce((sum, input) => sum + embeddingTokens(input), 0);

/** With a `limit`, counting a text stops (returning a value ≥ limit) once past it. */
export const embeddingTokens = (input: EmbeddingInput, limit = Infinity): number =>
  typeof input === 'string' ? countTokens(input, limit) : input.length;
