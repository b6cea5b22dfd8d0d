/** What every form's converter adds to a canonical request only when the client asked for it. */
import type { CanonicalReasoning, CanonicalResponseFormat } from '../canonical/model';

/** `reasoning` and `responseFormat`, each present only when set (absent: the default). */
export const withOptional = (
  reasoning: CanonicalReasoning | null,
  responseFormat: CanonicalResponseFormat | null,
) => ({ ...(reasoning && { reasoning }), ...(responseFormat && { responseFormat }) });
