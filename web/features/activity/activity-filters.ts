/**
 * The Activity page's filters as they live in the URL, so a view can be bookmarked and shared:
 * - `days=N`: the last N UTC days, today included (a preset; 30 when nothing is set);
 * - `from=YYYY-MM-DD&to=YYYY-MM-DD`: a fixed range of UTC days, both included (wins over `days`);
 * - `model=<id>`, `outcome=completed|ended_early`;
 * - `key_id=<id>`: an account profile's requests made with one of its child keys;
 * - `session_id=<id>`: one agent session's requests (the table only; the sessions list names them);
 * - `id=<cf-ray>`: the one request of that trace id, whatever its day (the table only), its detail open.
 * The gateway counts activity per UTC day for at most the last 90 days, so ranges stay inside
 * those: one range feeds the table, the charts, the totals and the CSV alike.
 */
import {
  generationOutcomeSchema,
  keyIdSchema,
  traceIdSchema,
  maxActivityDays,
  type GenerationOutcome,
} from '../../../contract/workbench-api';
import {
  dayNumberOf,
  dayNumberOfIso,
  formatDay,
  isoDateOf,
  secondsPerDay,
} from '../../lib/utc-days';

/** The presets offered as buttons, in days. */
export const rangePresets = [
  { days: 1, label: 'Today' },
  { days: 7, label: '7 days' },
  { days: 30, label: '30 days' },
  { days: 90, label: '90 days' },
] as const;

export const defaultDays = 30;

export interface ActivityFilters {
  /** First UTC day, `YYYY-MM-DD`, included. */
  from: string;
  /** Last UTC day, `YYYY-MM-DD`, included. */
  to: string;
  /** The preset in use (`days=`), or null for a fixed range. */
  presetDays: number | null;
  model: string | null;
  outcome: GenerationOutcome | null;
  /** Only the requests made with this key (an account profile's child); null for all. */
  keyId: string | null;
  /** Only the requests of this agent session; null for all. */
  sessionId: string | null;
  /** The one request of this trace id (cf-ray), whatever the range; null for a listing. */
  traceId: string | null;
  /** Something in the URL was out of range or malformed and was corrected; says what. */
  corrected: string | null;
}

/** Reads the filters from the URL, correcting what the gateway cannot answer. */
export function readActivityFilters(search: URLSearchParams, nowMs: number): ActivityFilters {
  const today = dayNumberOf(nowMs);
  const earliest = today - maxActivityDays + 1;
  const model = search.get('model')?.trim() || null;
  const sessionId = search.get('session_id')?.trim().slice(0, 200) || null;
  const outcomeResult = generationOutcomeSchema.safeParse(search.get('outcome'));
  const outcome = outcomeResult.success ? outcomeResult.data : null;
  const corrections: string[] = [];
  if (search.get('outcome') && !outcome) corrections.push('an unknown outcome was ignored');
  const keyIdResult = keyIdSchema.safeParse(search.get('key_id'));
  const keyId = keyIdResult.success ? keyIdResult.data : null;
  if (search.get('key_id') && !keyId) corrections.push('a key id that is not one was ignored');
  const traceIdResult = traceIdSchema.safeParse(search.get('id')?.trim());
  const traceId = traceIdResult.success ? traceIdResult.data : null;
  if (search.get('id') && !traceId) corrections.push('a trace id that is not a cf-ray was ignored');

  let from = dayNumberOfIso(search.get('from'));
  let to = dayNumberOfIso(search.get('to'));
  if ((search.get('from') && from === null) || (search.get('to') && to === null)) {
    corrections.push('a date that is not YYYY-MM-DD was ignored');
  }
  let presetDays: number | null = null;
  if (from === null && to === null) {
    const asked = Number(search.get('days') ?? defaultDays);
    presetDays =
      Number.isInteger(asked) && asked >= 1 && asked <= maxActivityDays ? asked : defaultDays;
    if (search.get('days') !== null && presetDays !== asked) {
      corrections.push(`days must be 1 to ${maxActivityDays}; showing ${presetDays}`);
    }
    from = today - presetDays + 1;
    to = today;
  } else {
    from ??= Math.max(earliest, (to ?? today) - defaultDays + 1);
    to ??= today;
    if (to > today) {
      to = today;
      corrections.push('the range cannot end after today');
    }
    if (to < earliest) {
      // The whole range is older than the gateway keeps: nothing of it can be shown.
      corrections.push(
        `activity goes back ${maxActivityDays} days at most (to ${isoDateOf(earliest)}), and the range ${isoDateOf(from)} to ${isoDateOf(to)} ended before that; showing the last ${defaultDays} days`,
      );
      from = today - defaultDays + 1;
      to = today;
    } else {
      if (from > to) {
        corrections.push(
          `the range started (${isoDateOf(from)}) after it ended (${isoDateOf(to)}); showing ${isoDateOf(to)} only`,
        );
        from = to;
      }
      if (from < earliest) {
        corrections.push(
          `activity goes back ${maxActivityDays} days at most, so the range starts at ${isoDateOf(earliest)} instead of ${isoDateOf(from)}`,
        );
        from = earliest;
      }
    }
  }
  return {
    from: isoDateOf(from),
    to: isoDateOf(to),
    presetDays,
    model,
    outcome,
    keyId,
    sessionId,
    traceId,
    corrected: corrections.length > 0 ? `${corrections.join('; ')}.` : null,
  };
}

/** How many days back `GET /api/activity` must read for the range (today included). */
export function activityDaysFor(filters: ActivityFilters, nowMs: number): number {
  const from = dayNumberOfIso(filters.from) ?? dayNumberOf(nowMs);
  return Math.min(maxActivityDays, Math.max(1, dayNumberOf(nowMs) - from + 1));
}

/** The range as `GET /api/generations` takes it: Unix seconds, `from` included, `to` excluded. */
export function generationsWindow(filters: ActivityFilters): { from: number; to: number } {
  const from = dayNumberOfIso(filters.from) ?? 0;
  const to = (dayNumberOfIso(filters.to) ?? from) + 1;
  return { from: from * secondsPerDay, to: to * secondsPerDay };
}

/** Yesterday (UTC), `YYYY-MM-DD`: the one-click range "Yesterday". */
export function yesterdayOf(nowMs: number): string {
  return isoDateOf(dayNumberOf(nowMs) - 1);
}

/** The URL after choosing a preset: `days=N`, without a fixed range. */
export function withPreset(search: URLSearchParams, days: number): URLSearchParams {
  const next = new URLSearchParams(search);
  next.delete('from');
  next.delete('to');
  if (days === defaultDays) next.delete('days');
  else next.set('days', String(days));
  return next;
}

/** The URL after choosing fixed dates; the other end keeps its current value. */
export function withRange(
  search: URLSearchParams,
  filters: ActivityFilters,
  change: { from?: string; to?: string },
): URLSearchParams {
  const next = new URLSearchParams(search);
  next.delete('days');
  next.set('from', change.from ?? filters.from);
  next.set('to', change.to ?? filters.to);
  return next;
}

/** The range for people: "Nov 1 – Nov 22, 2026 (UTC)", or one day. */
export function describeRange(filters: Pick<ActivityFilters, 'from' | 'to'>): string {
  if (filters.from === filters.to) return `${formatDay(filters.from, true)} (UTC)`;
  return `${formatDay(filters.from)} – ${formatDay(filters.to, true)} (UTC)`;
}

/** The earliest and latest day a date field may take. */
export function dateBounds(nowMs: number): { min: string; max: string } {
  const today = dayNumberOf(nowMs);
  return { min: isoDateOf(today - maxActivityDays + 1), max: isoDateOf(today) };
}

/**
 * What to say when the model filter matches no activity in the range, so a total of $0 is not
 * read as free requests: whether the catalog knows the model (`catalogIds`, null when the catalog
 * could not be read). Null when the model has activity in the range, or no model is chosen.
 */
export function modelFilterNote(
  model: string | null,
  usedModels: readonly string[],
  catalogIds: ReadonlySet<string> | null,
  range: string,
): string | null {
  if (model === null || usedModels.includes(model)) return null;
  if (catalogIds !== null && !catalogIds.has(model)) {
    return `“${model}” is not a model in the gateway’s catalog, and this key made no request to it in ${range}: the figures below are zero because nothing matches. Check the model id, or clear the filter.`;
  }
  return `This key made no request to “${model}” in ${range}: the figures below are zero because nothing matches.`;
}
