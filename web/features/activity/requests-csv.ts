/**
 * The per-request CSV: one line per request of the filters' range, as the table lists them
 * (newest first), read page by page from `GET /api/generations`. Only data lines: no totals line
 * to mistake for a request (the per-day CSV has the totals).
 */
import type { ActivityRequest } from '../../../contract/workbench-api';
import { nanosToPlainUsd, usdToNanos } from '../../../contract/usd-nanos';
import { csvLine } from './activity-summary';
import { fetchGenerationsPage, type GenerationsFilters } from './api/generations';

export const requestCsvColumns = [
  'time_utc',
  'cf_ray',
  'key',
  'model',
  'provider',
  'prompt_tokens',
  'completion_tokens',
  'cost_usd',
  'outcome',
  'latency_ms',
] as const;

/** The most requests one export reads: beyond it, a narrower range. */
export const maxExportedRequests = 10_000;

/** The key a request was made with: the child's name and masked key, or the profile's own. */
function keyOf(request: ActivityRequest, profile: string): string {
  return request.child ? `${request.child.name} (${request.child.masked_key})` : profile;
}

export function requestsToCsv(requests: ActivityRequest[], profile: string): string {
  const lines = [requestCsvColumns.join(',')];
  for (const request of requests) {
    lines.push(
      csvLine([
        new Date(request.created_at * 1000).toISOString(),
        request.id,
        keyOf(request, profile),
        request.model,
        request.provider,
        request.prompt_tokens,
        request.completion_tokens,
        nanosToPlainUsd(usdToNanos(request.cost_usd)),
        request.outcome,
        Math.round(request.latency_ms),
      ]),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** Every request the filters match, following the cursor; `truncated` past the cap. */
export async function fetchAllRequests(
  profile: string,
  filters: GenerationsFilters,
): Promise<{ requests: ActivityRequest[]; truncated: boolean }> {
  const requests: ActivityRequest[] = [];
  let cursor: string | null = null;
  do {
    const page = await fetchGenerationsPage(profile, filters, cursor);
    requests.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor !== null && requests.length < maxExportedRequests);
  return { requests: requests.slice(0, maxExportedRequests), truncated: cursor !== null };
}
