/**
 * What a request is charged, held to what it reserved: the completion to the reserved
 * `max_tokens`, the cost to the reservation. The text past `max_tokens` is still passed on (the
 * gateway's count is an estimate that may disagree with the upstream's tokenizer, so cutting
 * could truncate a legitimate answer); it is not charged, and the record says the charge was
 * capped whenever it is less than the usage, reported or counted, would have cost.
 */
import { usageCost, type ChargedUsage } from '../billing/usage-cost';
import type { Nanos } from '../shared/money';
import type { ModelRoute } from '../providers/provider';

export type CappedCharge = {
  /** The usage charged: the completion held to `maxOutputTokens`. */
  usage: ChargedUsage;
  costNanos: Nanos;
  /** What the usage as produced would have cost. */
  uncappedNanos: Nanos;
  /** The charge was held below that (`charge_capped` on the record). */
  capped: boolean;
};

export function capCharge(
  route: ModelRoute,
  produced: ChargedUsage,
  bounds: { maxOutputTokens: number; reservedNanos: Nanos },
): CappedCharge {
  const usage = {
    ...produced,
    completionTokens: Math.min(produced.completionTokens, bounds.maxOutputTokens),
  };
  const uncappedNanos = usageCost(route, produced);
  const costNanos = Math.min(usageCost(route, usage), bounds.reservedNanos);
  // A completion held to the bound is a cap even at a completion price of 0: the record's count
  // is then not the usage.
  const capped = costNanos < uncappedNanos || usage.completionTokens < produced.completionTokens;
  return { usage, costNanos, uncappedNanos, capped };
}
