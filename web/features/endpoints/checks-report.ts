/** Pure helpers over a checks report: merging a partial re-run, totals, and the exports. */
import type { CheckOutcome, CheckResult, ChecksReport } from '../../../contract/workbench-api';
import type { BadgeTone } from '../../components/badge';
import { formatDuration, formatUsd, toMilliseconds } from '../../lib/format';

/** A re-run of some checks replaces those rows and keeps the rest. */
export function mergeReports(current: ChecksReport, partial: ChecksReport): ChecksReport {
  const updated = new Map(partial.results.map((result) => [result.id, result]));
  const results = current.results.map((result) => updated.get(result.id) ?? result);
  for (const result of partial.results) {
    if (!current.results.some((existing) => existing.id === result.id)) results.push(result);
  }
  return { ...current, ran_at: partial.ran_at ?? current.ran_at, results };
}

export const outcomeLabels: Record<CheckOutcome, string> = {
  available: 'Available',
  placeholder: 'Placeholder',
  missing: 'Not served',
  unauthorized: 'Unauthorized',
  payment_required: 'Payment required',
  forbidden: 'Forbidden',
  failing: 'Failing',
  expected_error: 'Expected error',
  skipped: 'Skipped',
};

export const outcomeTones: Record<CheckOutcome, BadgeTone> = {
  available: 'green',
  expected_error: 'green',
  placeholder: 'amber',
  missing: 'neutral',
  unauthorized: 'red',
  payment_required: 'red',
  forbidden: 'red',
  failing: 'red',
  skipped: 'neutral',
};

/** The word shown for a row: a check that never ran says so instead of "Skipped". */
export function outcomeLabel(result: CheckResult): string {
  if (result.ran_at === null && result.status === null && result.outcome === 'skipped')
    return 'Not run';
  return outcomeLabels[result.outcome];
}

const authFormLabels: Record<string, string> = {
  none: 'no key',
  bearer: 'Authorization: Bearer',
  query: '?key= query',
  'x-api-key': 'x-api-key header',
  'x-goog-api-key': 'x-goog-api-key header',
  'bearer-on-vendor-b': 'Bearer on Gemini form',
};

export function authFormLabel(authForm: string): string {
  return authFormLabels[authForm] ?? authForm;
}

/** The report's one verdict when the gateway refused the key: how many checks, why, the fix. */
export function refusalVerdict(
  report: ChecksReport,
): { count: number; summary: string; action: string } | null {
  const refused = report.results.filter((result) => result.outcome === 'payment_required');
  if (refused.length === 0 || !report.key_refusal) return null;
  return { count: refused.length, ...report.key_refusal };
}

/** Shorter than this, an explanation is said again rather than pointed to. */
const groupedLength = 60;

/**
 * Each row's explanation as the table shows it: the refusals the verdict covers point to it,
 * and of several identical long explanations only the first is written out, the others name it.
 */
export function shownExplanations(report: ChecksReport): Map<string, string> {
  const verdict = refusalVerdict(report);
  const firstWith = new Map<string, CheckResult>();
  const shown = new Map<string, string>();
  for (const result of report.results) {
    if (verdict && result.outcome === 'payment_required') {
      shown.set(result.id, `Refused: ${verdict.summary} (see above).`);
      continue;
    }
    const first = firstWith.get(result.explanation);
    if (first && result.explanation.length >= groupedLength) {
      shown.set(result.id, `Same as “${first.entry}”.`);
      continue;
    }
    if (!first) firstWith.set(result.explanation, result);
    shown.set(result.id, result.explanation);
  }
  return shown;
}

/** What running every check that costs money would cost, in USD, and which they are. */
export function paidChecksCost(results: CheckResult[]): {
  count: number;
  cost: number;
  entries: string[];
} {
  const paid = results.filter((result) => result.paid);
  return {
    count: paid.length,
    cost: paid.reduce((sum, result) => sum + result.estimated_cost_usd, 0),
    entries: paid.map((result) => result.entry),
  };
}

function formatRanAt(time: number | null): string {
  return time === null ? 'never' : new Date(toMilliseconds(time)).toISOString();
}

function markdownCell(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('|', '\\|').replaceAll(/\r?\n/g, ' ');
}

/**
 * The report as Markdown for a support message. It carries the masked key only: the BFF never
 * sends a full key, and this text never adds one.
 */
export function reportToMarkdown(
  report: ChecksReport,
  context: { maskedKey?: string; gatewayBaseUrl?: string },
): string {
  const lines = [
    `## Endpoint checks: profile \`${report.profile}\``,
    '',
    `- Key (masked): \`${context.maskedKey ?? 'unknown'}\``,
    ...(context.gatewayBaseUrl ? [`- Gateway: ${context.gatewayBaseUrl}`] : []),
    `- Run at: ${formatRanAt(report.ran_at)}`,
    '',
    '| Entry | Method | Path | Auth | Outcome | HTTP | Latency | cf-ray | Explanation |',
    '|---|---|---|---|---|---|---|---|---|',
    ...report.results.map((result) =>
      [
        result.entry + (result.planned ? ' (planned)' : ''),
        result.method,
        `\`${result.path}\``,
        authFormLabel(result.auth_form),
        outcomeLabel(result),
        result.status === null ? '—' : String(result.status),
        result.latency_ms === null ? '—' : formatDuration(result.latency_ms),
        result.cf_ray ? `\`${result.cf_ray}\`` : '—',
        result.explanation,
      ]
        .map(markdownCell)
        .reduce((row, cell) => `${row} ${cell} |`, '|'),
    ),
    '',
  ];
  return lines.join('\n');
}

/** The report as JSON, with the masked key beside it. */
export function reportToJson(
  report: ChecksReport,
  context: { maskedKey?: string; gatewayBaseUrl?: string },
): string {
  return JSON.stringify(
    {
      masked_key: context.maskedKey ?? null,
      gateway_base_url: context.gatewayBaseUrl ?? null,
      ...report,
    },
    null,
    2,
  );
}

/** Costs shown next to a check run: "$0.000012". */
export function formatCheckCost(cost: number): string {
  return cost === 0 ? 'free' : formatUsd(cost);
}
