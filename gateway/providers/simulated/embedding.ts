/**
 * The simulated embedding model's vectors: hashed features of the text (its words, and the
 * character trigrams of each word) summed into a fixed number of dimensions and normalised to
 * unit length. The same text always gives the same vector, and texts that share words or
 * spellings share features, so their cosine similarity is high: enough for retrieval code to be
 * tested against it, with no network and no weights.
 */
import type { EmbeddingInput } from '../../canonical/model';
import { invalidRequest } from '../../errors';

/** The vector length `sim/embed-small` produces; `dimensions` may ask for fewer. */
export const SIMULATED_EMBEDDING_DIMENSIONS = 256;

/** Trigrams weigh less than whole words: a shared word says more than a shared spelling. */
const TRIGRAM_WEIGHT = 0.5;

/** 32-bit FNV-1a: small, fast and the same everywhere (no `Math.random`, no platform hash). */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Adds one feature: its hash picks the dimension and (by its top bit) the sign. */
function addFeature(vector: Float64Array, feature: string, weight: number): void {
  const hash = fnv1a(feature);
  const sign = hash & 0x80000000 ? -1 : 1;
  vector[hash % vector.length]! += sign * weight;
}

/** The words of an input: lower-cased letters and digits, or `#<id>` for each token id. */
function wordsOf(input: EmbeddingInput): string[] {
  if (typeof input !== 'string') return input.map((id) => `#${id}`);
  return input.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function normalise(values: ArrayLike<number>, length: number): number[] {
  let sum = 0;
  for (let index = 0; index < length; index += 1) sum += values[index]! * values[index]!;
  const norm = Math.sqrt(sum);
  const vector = new Array<number>(length);
  for (let index = 0; index < length; index += 1)
    vector[index] = norm === 0 ? 0 : values[index]! / norm;
  // A text with no word (only punctuation) still gets a unit vector, the same every time.
  if (norm === 0) vector[0] = 1;
  return vector;
}

/**
 * The unit vector of one input, `dimensions` long: computed at full length, then cut and
 * normalised again, as OpenAI's `dimensions` shortens text-embedding-3 vectors.
 */
export function simulatedEmbedding(
  input: EmbeddingInput,
  dimensions: number = SIMULATED_EMBEDDING_DIMENSIONS,
): number[] {
  if (
    !Number.isInteger(dimensions) ||
    dimensions < 1 ||
    dimensions > SIMULATED_EMBEDDING_DIMENSIONS
  ) {
    throw invalidRequest(
      `dimensions is ${dimensions}; this model makes vectors of 1 to ${SIMULATED_EMBEDDING_DIMENSIONS} dimensions.`,
    );
  }
  const vector = new Float64Array(SIMULATED_EMBEDDING_DIMENSIONS);
  for (const word of wordsOf(input)) {
    addFeature(vector, `w:${word}`, 1);
    const padded = ` ${word} `;
    for (let index = 0; index + 3 <= padded.length; index += 1)
      addFeature(vector, `t:${padded.slice(index, index + 3)}`, TRIGRAM_WEIGHT);
  }
  return normalise(vector, dimensions);
}
