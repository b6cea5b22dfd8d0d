/**
 * The output bound admission reserves for. Agent clients ask for more than most models can write
 * (Claude Code sends 32,000 to 128,000): such a `max_tokens` is lowered to the model's maximum and
 * reported as adjusted, unless the client asked for strict mode, which refuses it as before.
 */
import type { CatalogModel } from '../catalog/catalog';
import type { CanonicalRequest } from '../canonical/model';
import { clientFieldName } from '../canonical/translation';
import { invalidRequest } from '../errors';

export type OutputBound = {
  /** What the answer may produce, and what is reserved and sent upstream. */
  maxOutputTokens: number;
  /** `max_tokens=32000->8192` when the client's value was lowered; else empty. */
  adjusted: string[];
};

export function outputBound(request: CanonicalRequest, model: CatalogModel): OutputBound {
  const asked = request.maxTokens;
  if (asked === null) return { maxOutputTokens: model.maxCompletionTokens, adjusted: [] };
  if (asked <= model.maxCompletionTokens) return { maxOutputTokens: asked, adjusted: [] };
  const field = clientFieldName(request, 'maxTokens');
  if (request.requireParameters) {
    throw invalidRequest(
      `${field} is ${asked}, more than ${model.id} can produce (${model.maxCompletionTokens}).`,
    );
  }
  return {
    maxOutputTokens: model.maxCompletionTokens,
    adjusted: [`${field}=${asked}->${model.maxCompletionTokens}`],
  };
}
