/**
 * A token count as an upstream reports it, read by every provider kind's wire schema. The gateway
 * charges what the upstream says it served, so the count must be one a bill can be made of: a
 * whole number from 0 up. Anything else (negative, fractional, a string, 1e300) is read as
 * unreported (null), and the pipeline counts that part itself, as it does when the count is
 * missing. A negative count would otherwise give money back to the key, a fractional one a charge
 * that is not whole nanos.
 */
import { z } from 'zod';

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
