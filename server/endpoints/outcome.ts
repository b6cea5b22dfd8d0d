/**
 * What an endpoint check's answer means: a small pure mapping from status and shape to an
 * outcome, and the plain-language explanation with the advice for it.
 */
import type { KeyStatus } from '../../contract/gateway';
import type { CheckOutcome, ChecksReport } from '../../contract/workbench-api';
import { blockedByOf } from '../keys/key-status';

export type KeyRefusal = NonNullable<ChecksReport['key_refusal']>;

/** What stops each unusable state, in a few words, and the action that fixes it. */
const refusals: Record<Exclude<KeyRefusal['state'], 'active' | 'blocked'>, [string, string]> = {
  disabled: ['key disabled', 'Enable'],
  expired: ['key expired', 'Extend its expiry'],
  depleted: ['key depleted', 'Raise its limit or recharge it'],
};

/** Why the gateway refuses the key, as its `GET /v1/key` names it; null for a usable key. */
export function keyRefusalOf(status: KeyStatus | null): KeyRefusal | null {
  if (!status || status.state === 'active') return null;
  if (status.state === 'blocked') {
    const summary = blockedByOf(status)?.summary ?? 'its parent key cannot be used';
    return { state: 'blocked', summary: `blocked: ${summary}`, action: 'Check the parent key' };
  }
  const [summary, action] = refusals[status.state];
  return { state: status.state, summary, action };
}

/**
 * 2xx with the expected shape is `available`; 2xx with another shape, or 501, is a
 * `placeholder` (a route that answers is not thereby production-capable).
 */
export function classifyOutcome(
  status: number,
  shapeOk: boolean,
  expectedStatus?: number,
): CheckOutcome {
  if (expectedStatus !== undefined && status === expectedStatus) return 'expected_error';
  if (status >= 200 && status < 300) {
    if (expectedStatus !== undefined) return 'failing';
    return shapeOk ? 'available' : 'placeholder';
  }
  if (status === 501) return 'placeholder';
  if (status === 404 || status === 405) return 'missing';
  if (status === 401) return 'unauthorized';
  if (status === 402) return 'payment_required';
  if (status === 403) return 'forbidden';
  return 'failing';
}

/**
 * Said once per planned row, in its explanation (the row's badge only names it); plain words,
 * since users cannot read the spec the word "planned" comes from.
 */
export const plannedEntryNote =
  ' Not served by this gateway yet: the entry is planned, with no promise it will work in production.';

export function explainOutcome(
  outcome: CheckOutcome,
  details: {
    status: number | null;
    planned: boolean;
    expectedStatus?: number;
    gatewayMessage?: string | null;
    /** What an available answer found, e.g. "2 providers, in fallback order: a, b." */
    found?: string | null;
    /** Why the gateway refuses the key, when its `GET /v1/key` said so at the run. */
    keyRefusal?: KeyRefusal | null;
  },
): string {
  const said = details.gatewayMessage ? ` The gateway said: "${details.gatewayMessage}".` : '';
  const plannedNote = details.planned ? plannedEntryNote : '';
  switch (outcome) {
    case 'available':
      return `Answered with the expected shape.${details.found ? ` ${details.found}` : ''}${plannedNote}`;
    case 'placeholder':
      return details.status === 501
        ? `The route exists but answers 501 Not Implemented: a placeholder. Do not build on it yet.${plannedNote}`
        : `The route answers 2xx but not with the expected shape: likely a placeholder handled upstream. Do not assume it works in production.${plannedNote}`;
    case 'missing':
      return `Not served by this gateway: it answers HTTP ${details.status ?? 404} for this route.${plannedNote}${said}`;
    case 'unauthorized':
      return `HTTP 401: the key is missing or unknown, or not accepted in this form. Confirm the key is present, begins with sk-, and is sent in a supported header or query parameter.${said}`;
    case 'payment_required':
      if (details.keyRefusal) {
        return `HTTP 402: the gateway refuses this key (${details.keyRefusal.summary}, as its GET /v1/key says). ${details.keyRefusal.action} on the Keys page, then run the checks again.`;
      }
      return `HTTP 402: the key is expired, disabled, depleted, or its parent is disabled or expired. Inspect the key state and balance on the Keys page; do not retry unchanged.${said}`;
    case 'forbidden':
      return `HTTP 403: another upstream authorization decision was passed back.${said}`;
    case 'expected_error':
      return `Rejected with HTTP ${details.status ?? details.expectedStatus}, as it must be: the Gemini form takes its key in x-goog-api-key or ?key=, so the gateway itself refuses a Bearer token there (401) and sends nothing upstream.`;
    case 'failing':
      if (details.status === null) return `No usable answer.${said}`;
      if (details.expectedStatus !== undefined && details.status >= 200 && details.status < 300) {
        return `Expected HTTP ${details.expectedStatus}, but the gateway accepted the request (HTTP ${details.status}).`;
      }
      if (details.status >= 500) {
        return `HTTP ${details.status}: a fault of the gateway or a provider. Keep the trace id (cf-ray) as evidence and retry later.${said}`;
      }
      if (details.status === 429) return `HTTP 429: a capacity limit; retry later.${said}`;
      return `HTTP ${details.status}: the gateway rejected the check's request.${said}`;
    case 'skipped':
      return 'Not run.';
    default:
      return '';
  }
}
