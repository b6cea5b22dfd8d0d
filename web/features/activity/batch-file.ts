/**
 * The page's check of a batch file before it is sent (docs/workbench.md, "Batches"): small
 * enough for one upload to the workbench, and JSONL (one JSON object a line). What each line
 * asks for is the gateway's to judge: a line it cannot run ends in the batch's error file.
 */
import { batchLimits } from '../../../contract/batches';
import { workbenchBodyLimitBytes } from '../../../contract/workbench-api';

export type BatchFileCheck =
  { ok: true; text: string; lines: number } | { ok: false; error: string };

const mebibytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

/** The file goes to the workbench inside a JSON body, which may hold at most this much. */
export const batchUploadLimitBytes = workbenchBodyLimitBytes;

const tooLarge = (name: string, bytes: number) =>
  `“${name}” is ${mebibytes(bytes)} as sent; the workbench uploads at most ${mebibytes(batchUploadLimitBytes)} at once. Split it into smaller batches, or upload it with the API (POST /v1/files takes up to ${mebibytes(batchLimits.fileBytes)}).`;

/** The JSON body the page sends, in bytes: JSON escapes (quotes, control characters) add to the file. */
export function uploadBytes(body: unknown): number {
  return new TextEncoder().encode(JSON.stringify(body)).length;
}

/** Checks a batch file's text; `name` is only for the messages. */
export function checkBatchText(name: string, text: string): BatchFileCheck {
  const encoder = new TextEncoder();
  const lines = text.split('\n');
  let count = 0;
  for (const [index, raw] of lines.entries()) {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') continue;
    count += 1;
    const where = `Line ${index + 1} of “${name}”`;
    if (encoder.encode(line).length > batchLimits.lineBytes) {
      return {
        ok: false,
        error: `${where} is over ${mebibytes(batchLimits.lineBytes)}, the most one line of a batch may be.`,
      };
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return {
        ok: false,
        error: `${where} is not JSON: a batch file is JSONL, one JSON request a line.`,
      };
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return {
        ok: false,
        error: `${where} is not a JSON object: each line is one request, {"custom_id", "method", "url", "body"}.`,
      };
    }
  }
  if (count === 0) {
    return { ok: false, error: `“${name}” is empty: a batch file has one JSON request a line.` };
  }
  if (count > batchLimits.lines) {
    return {
      ok: false,
      error: `“${name}” has ${count.toLocaleString('en-US')} lines; a batch takes at most ${batchLimits.lines.toLocaleString('en-US')}.`,
    };
  }
  return { ok: true, text, lines: count };
}

/**
 * Reads and checks a chosen file. One larger than an upload may be is refused before it is read,
 * so a huge file never fills the tab's memory.
 */
export async function checkBatchFile(file: File): Promise<BatchFileCheck> {
  if (file.size > batchUploadLimitBytes)
    return { ok: false, error: tooLarge(file.name, file.size) };
  let text: string;
  try {
    text = await file.text();
  } catch {
    return { ok: false, error: `“${file.name}” could not be read.` };
  }
  return checkBatchText(file.name, text);
}

/** The refusal of a file whose upload, JSON escapes included, is over the limit; null when it fits. */
export function uploadTooLarge(name: string, body: unknown): string | null {
  const bytes = uploadBytes(body);
  return bytes > batchUploadLimitBytes ? tooLarge(name, bytes) : null;
}
