/**
 * Money is counted in whole nano-dollars (1e-9 USD) so that sums never drift: a price of
 * 0.000000125 USD per token is 125 nanos, and a million requests add up exactly. USD numbers
 * exist only at the edges, in what the API shows.
 */
export type Nanos = number;

const NANOS_PER_USD = 1_000_000_000;

/** Parses a decimal USD string ("0.000003", "12.5") into nanos; null when not exact. */
export function parseUsdToNanos(decimal: string): Nanos | null {
  const match = /^(\d+)(?:\.(\d{1,9}))?$/.exec(decimal.trim());
  if (!match) return null;
  const whole = Number(match[1]);
  const fraction = Number((match[2] ?? '').padEnd(9, '0'));
  const nanos = whole * NANOS_PER_USD + fraction;
  return Number.isSafeInteger(nanos) ? nanos : null;
}

/** A USD amount given as a number (command line, tests) to nanos, rounded to the nano. */
export function usdToNanos(usd: number): Nanos {
  return Math.round(usd * NANOS_PER_USD);
}

export function nanosToUsd(nanos: Nanos): number {
  return nanos / NANOS_PER_USD;
}

/** Nanos per token as the catalog's decimal string ("0.000003"). */
export function nanosToDecimalString(nanos: Nanos): string {
  const whole = Math.floor(nanos / NANOS_PER_USD);
  const fraction = String(nanos % NANOS_PER_USD)
    .padStart(9, '0')
    .replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}
