/**
 * The one source of the Activity page's figures: the gateway's per-day, per-model activity,
 * narrowed to the range and model chosen, counted in whole nano-dollars. The charts, the totals
 * and the CSV are all drawn from one `ActivitySummary`, so they cannot disagree; money is added
 * as integers and turned into text exactly, never through a rounded float.
 */
import type { ActivityView } from '../../../contract/workbench-api';
import { nanosToPlainUsd, usdToNanos } from '../../../contract/usd-nanos';
import { dayNumberOfIso } from '../../lib/utc-days';

/** Requests, tokens and cost of some requests, cost in nano-dollars. */
export interface Figures {
  requests: number;
  promptTokens: number;
  completionTokens: number;
  costNanos: number;
}

export interface SummaryDay extends Figures {
  /** `YYYY-MM-DD`, UTC. */
  date: string;
  /** The day's figures per model, for the models used that day. */
  models: Record<string, Figures>;
}

export interface ActivitySummary {
  from: string;
  to: string;
  /** Every day of the range, oldest first, days without requests included. */
  days: SummaryDay[];
  /** Models used in the range, the most spent on first (then by requests, then by name). */
  models: string[];
  totals: Figures;
}

const zero = (): Figures => ({ requests: 0, promptTokens: 0, completionTokens: 0, costNanos: 0 });

function add(into: Figures, figures: Figures): void {
  into.requests += figures.requests;
  into.promptTokens += figures.promptTokens;
  into.completionTokens += figures.completionTokens;
  into.costNanos += figures.costNanos;
}

/**
 * The summary of the days `from`–`to` (both included), of one model or all. Day totals are the
 * sums of their models' entries, and the range's totals the sums of the days: the figures the
 * charts stack are the figures the totals and the CSV add up.
 */
export function summarizeActivity(
  view: ActivityView,
  range: { from: string; to: string },
  model: string | null = null,
): ActivitySummary {
  const first = dayNumberOfIso(range.from) ?? Number.NEGATIVE_INFINITY;
  const last = dayNumberOfIso(range.to) ?? Number.POSITIVE_INFINITY;
  const totals = zero();
  const perModel = new Map<string, Figures>();
  const days: SummaryDay[] = [];
  for (const entry of view.data) {
    const day = dayNumberOfIso(entry.date);
    if (day === null || day < first || day > last) continue;
    const summaryDay: SummaryDay = { date: entry.date, ...zero(), models: {} };
    for (const used of entry.models) {
      if (model !== null && used.model !== model) continue;
      const figures: Figures = {
        requests: used.requests,
        promptTokens: used.prompt_tokens,
        completionTokens: used.completion_tokens,
        costNanos: usdToNanos(used.cost_usd),
      };
      const sameModel = (summaryDay.models[used.model] ??= zero());
      add(sameModel, figures);
      add(summaryDay, figures);
      const inRange = perModel.get(used.model) ?? zero();
      add(inRange, figures);
      perModel.set(used.model, inRange);
    }
    add(totals, summaryDay);
    days.push(summaryDay);
  }
  const models = [...perModel.entries()]
    .sort(
      ([nameA, a], [nameB, b]) =>
        b.costNanos - a.costNanos || b.requests - a.requests || nameA.localeCompare(nameB),
    )
    .map(([name]) => name);
  return { from: range.from, to: range.to, days, models, totals };
}

/** Every model the view names, for the model filter: the most spent on first. */
export function modelsOf(view: ActivityView | undefined): string[] {
  if (!view) return [];
  const first = view.data[0]?.date ?? '';
  const last = view.data[view.data.length - 1]?.date ?? '';
  return summarizeActivity(view, { from: first, to: last }).models;
}

/** The heading of the CSV's columns. */
export const csvColumns = [
  'date',
  'model',
  'requests',
  'prompt_tokens',
  'completion_tokens',
  'cost_usd',
] as const;

/**
 * One CSV field: quoted when it holds a comma, quote or line break, and led by `'` when a
 * spreadsheet would take it for a formula (OWASP "CSV injection").
 */
function csvField(value: string | number): string {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export const csvLine = (fields: Array<string | number>) => fields.map(csvField).join(',');

/**
 * The summary as CSV: one line per day and model with requests (oldest first, then by model as
 * the chart stacks them), and a last line `total` with the range's totals. Costs are exact
 * decimal USD, so the lines add up to the total to the last digit.
 */
export function summaryToCsv(summary: ActivitySummary): string {
  const lines = [csvColumns.join(',')];
  for (const day of summary.days) {
    for (const model of summary.models) {
      const figures = day.models[model];
      if (!figures || figures.requests === 0) continue;
      lines.push(
        csvLine([
          day.date,
          model,
          figures.requests,
          figures.promptTokens,
          figures.completionTokens,
          nanosToPlainUsd(figures.costNanos),
        ]),
      );
    }
  }
  const { totals } = summary;
  lines.push(
    csvLine([
      'total',
      `${summary.from} to ${summary.to}`,
      totals.requests,
      totals.promptTokens,
      totals.completionTokens,
      nanosToPlainUsd(totals.costNanos),
    ]),
  );
  return `${lines.join('\r\n')}\r\n`;
}

/** The CSV's file name: `activity-<profile>-<from>-to-<to>.csv`, safe on every system. */
export function csvFileName(
  profile: string,
  summary: ActivitySummary,
  model: string | null,
): string {
  const safe = (text: string) => text.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60);
  const modelPart = model ? `-${safe(model)}` : '';
  return `activity-${safe(profile)}${modelPart}-${summary.from}-to-${summary.to}.csv`;
}
