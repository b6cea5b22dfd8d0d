/**
 * Budgets that renew (docs/keys-and-money.md, "Periods"): the boundaries of a key's period, at
 * 00:00 UTC (weeks from Monday, months from the 1st), and the period's figures. A periodic key
 * keeps its lifetime counters; `periodBaseNanos` is what it had charged when the period began, so
 * the period's spend is what it has charged since, and every budget checks against
 * `periodBaseNanos + limit + grace`. Pure: the clock is the caller's.
 */
import type { LimitReset } from '../../contract/gateway';
import type { Nanos } from '../shared/money';
import type { KeyRow } from '../store/store';

const DAY = 86_400;

/** The start (Unix seconds) of the period of `reset` that holds `nowSeconds`; null for `none`. */
export function periodStart(reset: LimitReset, nowSeconds: number): number | null {
  if (reset === 'none') return null;
  const day = Math.floor(nowSeconds / DAY) * DAY;
  if (reset === 'daily') return day;
  if (reset === 'weekly') {
    // 1970-01-01 was a Thursday: days since the epoch plus 3, modulo 7, is days since Monday.
    const sinceMonday = (Math.floor(nowSeconds / DAY) + 3) % 7;
    return day - sinceMonday * DAY;
  }
  const date = new Date(nowSeconds * 1000);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / 1000;
}

/** The end of the period of `reset` that began at `startSeconds`: the next one's start. */
export function periodEnd(reset: LimitReset, startSeconds: number): number | null {
  if (reset === 'none') return null;
  if (reset === 'daily') return startSeconds + DAY;
  if (reset === 'weekly') return startSeconds + 7 * DAY;
  const date = new Date(startSeconds * 1000);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) / 1000;
}

/** Whether the key's period has ended by `nowSeconds`, so it must start a new one first. */
export function periodDue(key: KeyRow, nowSeconds: number): boolean {
  if (key.limitReset === 'none' || key.periodStartedAt === null) return false;
  return nowSeconds >= periodEnd(key.limitReset, key.periodStartedAt)!;
}

/**
 * The key's spend in its current period (its whole life for `none`): settled and pending. Charges
 * of the last period still pending when it ended are in the base, so the settled part is whatever
 * the counters hold beyond it.
 */
export function periodSpend(
  key: Pick<KeyRow, 'consumptionNanos' | 'periodBaseNanos'>,
  pendingNanos: Nanos,
): { settled: Nanos; pending: Nanos; total: Nanos } {
  const total = Math.max(key.consumptionNanos + pendingNanos - key.periodBaseNanos, 0);
  const settled = Math.min(Math.max(key.consumptionNanos - key.periodBaseNanos, 0), total);
  return { settled, pending: total - settled, total };
}

/** The most every budget lets the key's lifetime charges reach (billing/budget.ts). */
export const ceilingNanos = (
  key: Pick<KeyRow, 'limitNanos' | 'graceNanos' | 'periodBaseNanos'>,
): Nanos => key.periodBaseNanos + key.limitNanos + key.graceNanos;
