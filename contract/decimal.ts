/**
 * Exact decimal arithmetic on the catalog's price strings. Prices arrive as USD per token
 * ("0.000003"); shown per million tokens they must read "$3", not "$2.9999999999999996", so
 * they are kept as an integer of digits and a scale instead of a float.
 */

/** `digits / 10^scale`, with `scale >= 0`. */
export interface Decimal {
  digits: bigint;
  scale: number;
}

const decimalPattern = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** Parses a decimal string ("0.000003", "3e-6", "-1"); null when it is not a number. */
export function parseDecimal(text: string): Decimal | null {
  const match = decimalPattern.exec(text.trim());
  if (!match) return null;
  const [, sign = '', integerPart = '', fractionPart = '', exponentPart] = match;
  if (integerPart === '' && fractionPart === '') return null;
  const exponent = exponentPart ? Number.parseInt(exponentPart, 10) : 0;
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 1000) return null;
  let digits = BigInt(`${integerPart}${fractionPart}` || '0');
  let scale = fractionPart.length - exponent;
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  if (sign === '-') digits = -digits;
  return normalize({ digits, scale });
}

/** An amount as a person typed it, read: its value, or what is wrong with the text. */
export interface TypedAmount {
  /** Null when the text is empty or cannot be read. */
  value: Decimal | null;
  /** Why the text cannot be read; null when it is empty or fine. */
  problem: string | null;
}

/**
 * Reads a non-negative amount as a person types it: "$3", "0.5", " 2 ", a decimal comma ("1,5" is
 * 1.5) or thousands separators ("1,000.5"). "1,000" alone could be either, so it is refused with
 * a question rather than guessed. One reader for every amount field (catalog prices, key limits).
 */
export function readTypedAmount(text: string): TypedAmount {
  const trimmed = text.trim().replace(/^\$\s*/, '');
  if (trimmed === '') return { value: null, problem: null };
  let cleaned = trimmed;
  if (trimmed.includes(',')) {
    if (/^\d+,\d{3}$/.test(trimmed)) {
      return {
        value: null,
        problem: `“${text.trim()}” could mean ${trimmed.replace(',', '')} or ${trimmed.replace(',', '.')}: write it without the comma, or with a dot for decimals.`,
      };
    }
    if (/^\d*,\d+$/.test(trimmed)) cleaned = trimmed.replace(',', '.');
    else if (/^\d{1,3}(,\d{3})+(\.\d+)?$/.test(trimmed)) cleaned = trimmed.replaceAll(',', '');
  }
  const value = parseDecimal(cleaned);
  if (!value || !/^[\d.]+$/.test(cleaned)) {
    return { value: null, problem: `“${text.trim()}” is not an amount: write it like 0.5 or 3.` };
  }
  return { value, problem: null };
}

/** Removes trailing zeros of the fraction so equal values have one form. */
function normalize(value: Decimal): Decimal {
  let { digits, scale } = value;
  while (scale > 0 && digits % 10n === 0n) {
    digits /= 10n;
    scale -= 1;
  }
  return { digits, scale };
}

/** `value * 10^power`, exactly. */
export function shiftDecimal(value: Decimal, power: number): Decimal {
  if (power >= value.scale) {
    return { digits: value.digits * 10n ** BigInt(power - value.scale), scale: 0 };
  }
  return normalize({ digits: value.digits, scale: value.scale - power });
}

function align(left: Decimal, right: Decimal): [bigint, bigint] {
  const scale = Math.max(left.scale, right.scale);
  return [
    left.digits * 10n ** BigInt(scale - left.scale),
    right.digits * 10n ** BigInt(scale - right.scale),
  ];
}

/** -1, 0 or 1, exactly. */
export function compareDecimal(left: Decimal, right: Decimal): number {
  const [a, b] = align(left, right);
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The value as plain text with at least `minimumFractionDigits` decimals, rounded half-up to
 * `maximumFractionDigits` (never in exponent notation).
 */
export function decimalToString(
  value: Decimal,
  minimumFractionDigits = 0,
  maximumFractionDigits = Number.POSITIVE_INFINITY,
): string {
  let { digits, scale } = value;
  if (scale > maximumFractionDigits) {
    const drop = 10n ** BigInt(scale - maximumFractionDigits);
    const negative = digits < 0n;
    const magnitude = negative ? -digits : digits;
    let rounded = magnitude / drop;
    if ((magnitude % drop) * 2n >= drop) rounded += 1n;
    digits = negative ? -rounded : rounded;
    scale = maximumFractionDigits;
    ({ digits, scale } = normalize({ digits, scale }));
  }
  const negative = digits < 0n;
  const text = (negative ? -digits : digits).toString().padStart(scale + 1, '0');
  const integerPart = text.slice(0, text.length - scale);
  let fractionPart = text.slice(text.length - scale);
  if (fractionPart.length < minimumFractionDigits) {
    fractionPart = fractionPart.padEnd(minimumFractionDigits, '0');
  }
  const grouped = integerPart.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const sign = negative && digits !== 0n ? '-' : '';
  return `${sign}${grouped}${fractionPart ? `.${fractionPart}` : ''}`;
}

/** The value as a float, for sorting and charts only, never for display. */
export function decimalToNumber(value: Decimal): number {
  return Number(decimalToString(value).replaceAll(',', ''));
}
