/**
 * The balance at the end of each past day, worked back from today's remaining and the daily spend
 * the Activity route already has: the chart starts full on every visit instead of empty. Exact
 * to the nano-dollar (sums in whole nanos). A recharge, credit or allocation in the range is not
 * in the daily spend, so the line before it is what the spend alone explains.
 */
import type { ActivityDayView } from '../../../contract/workbench-api';
import { usdToNanos } from '../../../contract/usd-nanos';
import { formatDay } from '../../lib/utc-days';
import type { BalanceSample } from './components/balance-chart';

/** How many days back the Keys chart reaches (the Activity page's default range). */
export const balanceHistoryDays = 30;

/**
 * One sample per day before the last (today), at the day's end (UTC), oldest first: the balance
 * then is today's remaining plus everything spent after it.
 */
export function dailyBalances(remainingUsd: number, days: ActivityDayView[]): BalanceSample[] {
  const samples: BalanceSample[] = [];
  let after = 0;
  for (let index = days.length - 1; index > 0; index -= 1) {
    after += usdToNanos(days[index]!.cost_usd);
    const date = days[index - 1]!.date;
    samples.push({
      time: Date.parse(`${date}T23:59:59Z`),
      remaining: (usdToNanos(remainingUsd) + after) / 1_000_000_000,
      label: `end of ${formatDay(date)}`,
    });
  }
  return samples.reverse();
}
