/** UTC days as the gateway counts activity: day numbers since 1970-01-01 and `YYYY-MM-DD`. */
export const secondsPerDay = 86_400;
const datePattern = /^\d{4}-\d{2}-\d{2}$/;

/** The UTC day number (days since 1970-01-01) of a time in milliseconds. */
export function dayNumberOf(timeMs: number): number {
  return Math.floor(timeMs / 1000 / secondsPerDay);
}

/** `YYYY-MM-DD` of a UTC day number. */
export function isoDateOf(day: number): string {
  return new Date(day * secondsPerDay * 1000).toISOString().slice(0, 10);
}

/** The UTC day number of `YYYY-MM-DD`, or null when it is not a real date. */
export function dayNumberOfIso(text: string | null | undefined): number | null {
  if (!text || !datePattern.test(text)) return null;
  const time = Date.parse(`${text}T00:00:00Z`);
  if (!Number.isFinite(time) || isoDateOf(time / 1000 / secondsPerDay) !== text) return null;
  return time / 1000 / secondsPerDay;
}

/** A day for people: "Nov 22" (UTC), with the year when `withYear`. */
export function formatDay(iso: string, withYear = false): string {
  const day = dayNumberOfIso(iso);
  if (day === null) return iso;
  return new Intl.DateTimeFormat('en-US', {
    month: 'short',
    day: 'numeric',
    ...(withYear ? { year: 'numeric' } : {}),
    timeZone: 'UTC',
  }).format(new Date(day * secondsPerDay * 1000));
}
