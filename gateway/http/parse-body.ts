/**
 * Turns a request body's bytes into JSON, or says why not: on the main thread, and on the
 * parsing thread (parse-worker.ts) for large bodies.
 */

/** Deeper JSON would overflow the stack of the converters that walk it recursively. */
export const MAX_NESTING_DEPTH = 128;

export type ParsedBody =
  | { ok: true; value: unknown }
  | { ok: false; reason: 'empty' }
  | { ok: false; reason: 'invalid'; detail: string }
  | { ok: false; reason: 'deep' };

export function parseBody(
  body: Uint8Array,
  maxDepth: number,
  depthOf: (text: string) => number = nestingDepth,
): ParsedBody {
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  if (text.trim() === '') return { ok: false, reason: 'empty' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: 'invalid', detail: (error as Error).message };
  }
  // The converters walk the body recursively (field renaming, schema conversion, token counting);
  // absurd nesting would overflow the stack there and end as a 500 instead of a 400.
  if (depthOf(text) > maxDepth) return { ok: false, reason: 'deep' };
  return { ok: true, value };
}

/** The deepest array/object nesting of valid JSON text; brackets inside strings do not count. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 0x22) {
      // Jump over the string (most of a big body is one: an image) to its unescaped closing quote.
      do {
        index = text.indexOf('"', index + 1);
        let backslashes = 0;
        while (text.charCodeAt(index - 1 - backslashes) === 0x5c) backslashes += 1;
        if (backslashes % 2 === 0) break;
      } while (index !== -1);
      if (index === -1) break;
    } else if (code === 0x7b || code === 0x5b) {
      depth += 1;
      if (depth > deepest) deepest = depth;
    } else if (code === 0x7d || code === 0x5d) depth -= 1;
  }
  return deepest;
}
