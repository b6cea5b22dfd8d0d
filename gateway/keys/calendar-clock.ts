/**
 * The clock the gateway decides by the calendar with (budget periods, key expiry): the system's,
 * moved by `GATEWAY_CLOCK_OFFSET_MS` for tests and drills. Leases, rate limits and timings keep
 * the system clock: instances must agree on those whatever a drill does.
 */
export type CalendarClock = { nowSeconds(): number };

/** What admission needs of budget periods: the calendar, and a way to start a key's next period. */
export type BudgetPeriods = {
  clock: CalendarClock;
  /** Starts the key's next period if its current one has ended (KeyAdmin.rollPeriod). */
  roll(keyId: string): Promise<unknown>;
};

export const calendarClock = (offsetMs = 0): CalendarClock => ({
  nowSeconds: () => Math.floor((Date.now() + offsetMs) / 1000),
});
