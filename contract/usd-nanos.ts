/**
 * Money as the gateway counts it, in whole nano-dollars, turned into text exactly: never through
 * a rounded float. Every page that shows a charge, and the gateway's error messages that name an
 * amount, use these, so a figure reads the same on the Activity page, in its CSV, under a
 * playground reply and in a refusal.
 */
import { decimalToString, parseDecimal, type Decimal } from './decimal';

const nanosPerUsd = 1_000_000_000;

/**
 * A USD amount from the gateway (nano-dollars divided by 1e9) back to whole nano-dollars. The
 * division's rounding error is far below half a nano for any amount under millions of dollars.
 */
export function usdToNanos(usd: number): number {
  return Math.round(usd * nanosPerUsd);
}

/** Nano-dollars as an exact decimal of USD, without trailing zeros. */
function nanosToDecimal(nanos: number): Decimal {
  return parseDecimal(`${Math.trunc(nanos)}e-9`) ?? { digits: 0n, scale: 0 };
}

/** Nano-dollars as plain decimal USD, every digit kept and no grouping: "0.000123457", "12". */
export function nanosToPlainUsd(nanos: number): string {
  return decimalToString(nanosToDecimal(nanos)).replaceAll(',', '');
}

/** Nano-dollars for people, exact: "$0.000123457", "$1,234.50", "$0.00". */
export function formatNanosUsd(nanos: number): string {
  const text = decimalToString(nanosToDecimal(nanos), 2);
  return text.startsWith('-') ? `-$${text.slice(1)}` : `$${text}`;
}
