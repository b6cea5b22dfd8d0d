/**
 * A batch's input checked line by line: OpenAI's JSONL (`{custom_id, method, url, body}` per
 * line) and Anthropic's `requests` (`{custom_id, params}`). A line that cannot run (not JSON, a
 * field missing, another endpoint, over the size limit, a repeated `custom_id`) becomes an errored
 * line naming its problem; the batch is refused whole (400) only when no line could run.
 */
import { batchLimits } from '../../contract/batches';
import { GatewayError, invalidRequest } from '../errors';
import type { BatchLineRow } from '../store/batches';

/** A line as checked: its request, or why it cannot run. */
export type CheckedLine =
  { customId: string; request: unknown } | { customId: string; problem: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function checkCustomId(value: unknown, seen: Set<string>): string | { problem: string } {
  if (typeof value !== 'string' || value.length === 0) {
    return { problem: "Invalid field 'custom_id': a non-empty string is required." };
  }
  if (value.length > batchLimits.customIdLength) {
    return {
      problem: `Invalid field 'custom_id': at most ${batchLimits.customIdLength} characters.`,
    };
  }
  if (seen.has(value)) return { problem: `Invalid field 'custom_id': '${value}' is repeated.` };
  seen.add(value);
  return value;
}

/** OpenAI's JSONL, every line for `endpoint`. */
export function checkJsonl(content: string, endpoint: string): CheckedLine[] {
  const seen = new Set<string>();
  const texts = content.split('\n').filter((text) => text.trim() !== '');
  if (texts.length > batchLimits.lines) {
    throw invalidRequest(
      `The file has ${texts.length} lines; a batch takes at most ${batchLimits.lines}.`,
    );
  }
  return texts.map((text, index) => {
    const fallbackId = `line-${index + 1}`;
    const fail = (problem: string, customId = fallbackId) => ({
      customId,
      problem: `Line ${index + 1}: ${problem}`,
    });
    if (Buffer.byteLength(text) > batchLimits.lineBytes) {
      return fail(`the line is over the limit of ${batchLimits.lineBytes} bytes.`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return fail('not valid JSON.');
    }
    if (!isObject(parsed)) return fail('not a JSON object.');
    const customId = checkCustomId(parsed.custom_id, seen);
    if (typeof customId !== 'string') return fail(customId.problem);
    if (parsed.method !== 'POST') return fail("Invalid field 'method': must be 'POST'.", customId);
    if (parsed.url !== endpoint) {
      return fail(
        `Invalid field 'url': '${String(parsed.url)}' is not the batch's endpoint '${endpoint}'.`,
        customId,
      );
    }
    if (!isObject(parsed.body))
      return fail("Invalid field 'body': an object is required.", customId);
    return { customId, request: parsed.body };
  });
}

/** Anthropic's `requests`. */
export function checkRequests(requests: unknown): CheckedLine[] {
  if (!Array.isArray(requests) || requests.length === 0) {
    throw invalidRequest("Invalid field 'requests': a non-empty array is required.");
  }
  if (requests.length > batchLimits.lines) {
    throw invalidRequest(`Invalid field 'requests': at most ${batchLimits.lines} requests.`);
  }
  const seen = new Set<string>();
  return requests.map((entry: unknown, index) => {
    const fail = (problem: string, customId = `request-${index}`) => ({
      customId,
      problem: `requests.${index}: ${problem}`,
    });
    if (!isObject(entry)) return fail('not an object.');
    const customId = checkCustomId(entry.custom_id, seen);
    if (typeof customId !== 'string') return fail(customId.problem);
    if (!isObject(entry.params))
      return fail("Invalid field 'params': an object is required.", customId);
    if (Buffer.byteLength(JSON.stringify(entry.params)) > batchLimits.lineBytes) {
      return fail(`the request is over the limit of ${batchLimits.lineBytes} bytes.`, customId);
    }
    return { customId, request: entry.params };
  });
}

/**
 * The lines to store; `errorBody` writes a line's problem in the batch's error shape. Refuses the
 * batch (400, naming the first problem) when no line could run.
 */
export function toLineRows(
  batchId: string,
  lines: CheckedLine[],
  errorBody: (error: GatewayError) => unknown,
): BatchLineRow[] {
  const first = lines.find((line) => 'problem' in line);
  if (first && lines.every((line) => 'problem' in line)) {
    throw invalidRequest(`No line of the batch can run. ${(first as { problem: string }).problem}`);
  }
  return lines.map((line, index) => {
    const problem = 'problem' in line ? invalidRequest(line.problem) : null;
    return {
      batchId,
      index,
      customId: line.customId,
      request: problem ? null : (line as { request: unknown }).request,
      state: problem ? 'errored' : 'pending',
      claimedBy: null,
      leaseExpiresAt: null,
      statusCode: problem ? 400 : null,
      result: problem ? errorBody(problem) : null,
      generationId: null,
      costNanos: 0,
    };
  });
}
