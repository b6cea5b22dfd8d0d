import type { KeyRow } from '../store/store';
import { periodDue, periodEnd, periodSpend, periodStart } from './budget-period';

const at = (iso: string) => Date.parse(iso) / 1000;

describe('budget periods', () => {
  it('start at 00:00 UTC: days, weeks from Monday, months from the 1st', () => {
    // 2026-12-02 is a Wednesday.
    const now = at('2026-12-02T17:45:10Z');
    expect(periodStart('none', now)).toBeNull();
    expect(periodStart('daily', now)).toBe(at('2026-12-02T00:00:00Z'));
    expect(periodStart('weekly', now)).toBe(at('2026-11-30T00:00:00Z'));
    expect(periodStart('monthly', now)).toBe(at('2026-12-01T00:00:00Z'));
    expect(periodStart('weekly', at('2026-11-30T00:00:00Z'))).toBe(at('2026-11-30T00:00:00Z'));
    expect(periodStart('weekly', at('2026-11-29T23:59:59Z'))).toBe(at('2026-11-23T00:00:00Z'));
  });

  it('end where the next begins, across a month and a year', () => {
    expect(periodEnd('daily', at('2026-12-31T00:00:00Z'))).toBe(at('2027-01-01T00:00:00Z'));
    expect(periodEnd('weekly', at('2026-11-30T00:00:00Z'))).toBe(at('2026-12-07T00:00:00Z'));
    expect(periodEnd('monthly', at('2026-12-01T00:00:00Z'))).toBe(at('2027-01-01T00:00:00Z'));
    expect(periodEnd('monthly', at('2027-02-01T00:00:00Z'))).toBe(at('2027-03-01T00:00:00Z'));
  });

  it('is due once its end has come', () => {
    const key = { limitReset: 'daily', periodStartedAt: at('2026-12-02T00:00:00Z') } as KeyRow;
    expect(periodDue(key, at('2026-12-02T23:59:59Z'))).toBe(false);
    expect(periodDue(key, at('2026-12-03T00:00:00Z'))).toBe(true);
    expect(periodDue({ ...key, limitReset: 'none' }, at('2027-12-03T00:00:00Z'))).toBe(false);
  });

  it("counts the period's spend beyond its base, the last period's pending included in it", () => {
    // 10 settled and 2 pending when the period began: base 12.
    expect(periodSpend({ consumptionNanos: 10, periodBaseNanos: 12 }, 2)).toEqual({
      settled: 0,
      pending: 0,
      total: 0,
    });
    // The 2 settled, then 3 more charged, 1 of them settled.
    expect(periodSpend({ consumptionNanos: 13, periodBaseNanos: 12 }, 2)).toEqual({
      settled: 1,
      pending: 2,
      total: 3,
    });
  });
});
