/**
 * A token count as an upstream reports it, read by every provider kind's wire schema. The gateway
 * charges what the upstream says it served, so the count must be one a bill can be made of: a
 * whole number from 0 up. Anything else (negative, fractional, a string, 1e300) is read as
 * unreported (null), and the pipeline counts that part itself, as it does when the count is
 * missing. A negative count would otherwise give money back to the key, a fractional one a charge
 * that is not whole nanos.
 */
import { z } from 'zod';
import type { ReportedUsage } from '../../canonical/model';

/**
 * No model reads or writes two billion tokens in one request; a count above it is a broken
 * upstream, and sums of such counts would pass what a double holds exactly.
 */
export const MAX_REPORTED_TOKENS = 2 ** 31 - 1;

export const reportedCount = z
  .number()
  .int()
  .nonnegative()
  .max(MAX_REPORTED_TOKENS)
  .nullish()
  .catch(null);

/**
 * The usage a stream ends with. A completion count that more output followed (a placeholder, or
 * a running count whose final one never came) is no count of the answer: it is left unreported,
 * and the pipeline counts the text delivered. The prompt count stays.
 */
export const finalUsage = (
  usage: ReportedUsage | null,
  outputSinceUsage: boolean,
): ReportedUsage | null =>
  usage && outputSinceUsage ? { ...usage, completionTokens: null } : usage;
