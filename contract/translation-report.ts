/**
 * What the gateway dropped or changed of a request to reach its provider (docs/translation.md):
 * in the answer's headers, and in the generation record (generation-record.ts), which is why it
 * lives apart from both.
 */
import { z } from 'zod';

export const translationReportSchema = z.looseObject({
  dropped: z.array(z.string()),
  adjusted: z.array(z.string()),
});
export type TranslationReport = z.infer<typeof translationReportSchema>;
