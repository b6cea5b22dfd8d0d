/** Reads a JSON request body with a size limit; every failure is a GatewayError naming it. */
import type { IncomingMessage } from 'node:http';
import { GatewayError, invalidRequest } from '../errors';

export async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  requireJsonContentType(request);
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);

  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      request.resume();
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw invalidRequest('The request body is empty; send a JSON object.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw invalidRequest(`The request body is not valid JSON (${(error as Error).message}).`);
  }
  // The converters walk the body recursively (field renaming, schema conversion, token counting);
  // absurd nesting would overflow the stack there and end as a 500 instead of a 400.
  if (nestingDepth(text) > MAX_NESTING_DEPTH) {
    throw invalidRequest(
      `Invalid field 'body': JSON nested more than ${MAX_NESTING_DEPTH} levels deep.`,
    );
  }
  return parsed;
}

export const MAX_NESTING_DEPTH = 128;

/** `application/json` or a structured `+json` type (`application/vnd.api+json`), any parameters. */
const jsonMediaType = /^application\/(?:[^\s/;]+\+)?json$/i;

/**
 * Refuses (415) a body not declared JSON, before reading it: a form post or `text/plain` is not
 * parsed as JSON by accident. A missing Content-Type is refused too; the vendors' clients always
 * send `application/json`.
 */
function requireJsonContentType(request: IncomingMessage): void {
  const sent = request.headers['content-type']?.trim();
  const mediaType = sent?.split(';')[0]!.trim() ?? '';
  if (jsonMediaType.test(mediaType)) return;
  // The body is not wanted: let it drain so the connection stays usable.
  request.resume();
  throw new GatewayError(
    415,
    'unsupported_media_type',
    'validation',
    `The request body must be JSON, sent with 'Content-Type: application/json'; this request sent ${
      sent ? `'Content-Type: ${sent.slice(0, 100)}'` : 'no Content-Type'
    }.`,
  );
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

const tooLarge = (maxBytes: number) =>
  new GatewayError(
    413,
    'request_too_large',
    'validation',
    `The request body is larger than ${maxBytes} bytes. Send less (e.g. smaller images).`,
  );
