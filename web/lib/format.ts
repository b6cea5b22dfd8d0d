/** Formatters shared by every page: money, prices, context lengths, durations and dates. */
import { decimalToString, parseDecimal, shiftDecimal, type Decimal } from '../../contract/decimal';
import { formatNanosUsd, usdToNanos } from '../../contract/usd-nanos';

const placeholder = '—';

/**
 * A USD amount for people, the one money format of every page: the gateway's figure to the
 * nano-dollar, exactly as `formatNanosUsd` writes it, so a cost or balance reads the same on
 * Keys, Activity and under a playground reply ($0.0126798, never $0.01268 on one of them).
 */
export function formatUsd(amount: number | null | undefined): string {
  if (amount === null || amount === undefined || !Number.isFinite(amount)) return placeholder;
  return formatNanosUsd(usdToNanos(amount));
}

/** USD per token (a decimal string) as an exact USD-per-million-tokens `Decimal`; null if unknown. */
export function pricePerMillion(pricePerToken: string | null | undefined): Decimal | null {
  if (pricePerToken === null || pricePerToken === undefined) return null;
  const value = parseDecimal(pricePerToken);
  return value ? shiftDecimal(value, 6) : null;
}

/**
 * USD per token (a decimal string, as the catalog sends it) shown per million tokens, computed
 * exactly: "0.000003" → "$3.00", "0.000000075" → "$0.075". A negative price is the catalog's way
 * of saying the price varies by request.
 */
export function formatPricePerMillion(pricePerToken: string | null | undefined): string {
  const value = pricePerMillion(pricePerToken);
  if (!value) return placeholder;
  if (value.digits < 0n) return 'varies';
  return `$${decimalToString(value, 2, 6)}`;
}

/** A context window in tokens: 131072 → "128K", 200000 → "200K", 1048576 → "1M". */
export function formatContextLength(tokens: number | null | undefined): string {
  if (tokens === null || tokens === undefined || !Number.isFinite(tokens) || tokens <= 0) {
    return placeholder;
  }
  const trim = (value: number) => String(Number(value.toFixed(1)));
  if (tokens % 1_048_576 === 0) return `${tokens / 1_048_576}M`;
  if (tokens >= 1_000_000) return `${String(Number((tokens / 1_000_000).toFixed(2)))}M`;
  // Round thousands first: 128000 is "128K", though it is also 125 × 1024.
  if (tokens % 1000 === 0) return `${tokens / 1000}K`;
  if (tokens % 1024 === 0) return `${tokens / 1024}K`;
  if (tokens >= 1000) return `${trim(tokens / 1000)}K`;
  return String(tokens);
}

/** A duration for people: "850 ms", "1.2 s", "4 min 5 s", "3 h 20 min", "12 d 4 h". */
export function formatDuration(milliseconds: number | null | undefined): string {
  if (milliseconds === null || milliseconds === undefined || !Number.isFinite(milliseconds)) {
    return placeholder;
  }
  const sign = milliseconds < 0 ? '-' : '';
  const value = Math.abs(milliseconds);
  if (value < 1000) return `${sign}${Math.round(value)} ms`;
  if (value < 60_000) return `${sign}${String(Number((value / 1000).toFixed(1)))} s`;
  const totalSeconds = Math.floor(value / 1000);
  const days = Math.floor(totalSeconds / 86_400);
  const hours = Math.floor((totalSeconds % 86_400) / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (days > 0) return `${sign}${days} d${hours ? ` ${hours} h` : ''}`;
  if (hours > 0) return `${sign}${hours} h${minutes ? ` ${minutes} min` : ''}`;
  return `${sign}${minutes} min${seconds ? ` ${seconds} s` : ''}`;
}

/** A Unix time in seconds or milliseconds as a local date and time, e.g. "2025-03-01 14:05". */
export function formatDateTime(
  time: number | null | undefined,
  unit: 'seconds' | 'milliseconds',
): string {
  if (time === null || time === undefined || !Number.isFinite(time)) return placeholder;
  const date = new Date(unit === 'seconds' ? time * 1000 : time);
  const pad = (part: number) => String(part).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/**
 * A time stamp in milliseconds; values that can only be seconds (before 2001 as milliseconds)
 * are taken as seconds, so either unit from the BFF reads right.
 */
export function toMilliseconds(time: number): number {
  return time < 1e12 ? time * 1000 : time;
}

/** A clock time with seconds, for "last refreshed" labels. */
export function formatTime(time: number): string {
  const date = new Date(toMilliseconds(time));
  const pad = (part: number) => String(part).padStart(2, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/**
 * A share (0–1) as a percentage to one decimal: 0.98333 → "98.3%", 1 → "100%". Never rounds a
 * share below 1 up to "100%", so a provider that failed once does not look perfect.
 */
export function formatPercent(share: number | null | undefined): string {
  if (share === null || share === undefined || !Number.isFinite(share)) return placeholder;
  const tenths = share < 1 ? Math.floor(share * 1000 + 1e-9) / 10 : Math.round(share * 1000) / 10;
  return `${String(tenths)}%`;
}

/**
 * A USD amount rounded to cents, for headlines ("$3.75"; "<$0.01" for a smaller non-zero amount):
 * the exact figure (`formatUsd`) goes beside it, on hover and in details.
 */
export function formatUsdCents(amount: number | null | undefined): string {
  if (amount === null || amount === undefined || !Number.isFinite(amount)) return placeholder;
  if (amount !== 0 && Math.abs(amount) < 0.005) return amount > 0 ? '<$0.01' : '>-$0.01';
  return formatNanosUsd(Math.round(amount * 100) * 10_000_000);
}
