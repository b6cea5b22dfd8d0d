/** Reads a JSON request body with a size limit; every failure is a GatewayError naming it. */
import type { IncomingMessage } from 'node:http';
import { GatewayError, invalidRequest } from '../errors';
import { MAX_NESTING_DEPTH, parseBody, type ParsedBody } from './parse-body';
import { parseOffThread } from './parse-thread';

export { MAX_NESTING_DEPTH, nestingDepth } from './parse-body';

export async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  requireJsonContentType(request);
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);

  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop early must not destroy the request: Node would then stop reading the
  // connection for good (a keep-alive client's next request would hang), where a request left
  // alone has its rest discarded within a bound (contract/unread-body.ts).
  for await (const chunk of request.iterator({ destroyOnReturn: false })) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      request.resume();
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk as Buffer);
  }
  const body = Buffer.concat(chunks, size);
  // A large body takes milliseconds to decode and parse: that happens on another thread, so the
  // event loop keeps answering other tenants meanwhile.
  const parsed =
    size >= OFF_THREAD_BYTES ? await parseOffThread(body) : parseBody(body, MAX_NESTING_DEPTH);
  if (parsed.ok) return parsed.value;
  throw bodyRefusal(parsed);
}

/** Bodies from this size on are parsed off the event loop (about a millisecond of work). */
export const OFF_THREAD_BYTES = 256 * 1024;

function bodyRefusal(refused: Extract<ParsedBody, { ok: false }>): GatewayError {
  switch (refused.reason) {
    case 'empty':
      return invalidRequest('The request body is empty; send a JSON object.');
    case 'invalid':
      return invalidRequest(`The request body is not valid JSON (${refused.detail}).`);
    case 'deep':
      return invalidRequest(
        `Invalid field 'body': JSON nested more than ${MAX_NESTING_DEPTH} levels deep.`,
      );
  }
}

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
  throw new GatewayError({
    status: 415,
    type: 'unsupported_media_type',
    stage: 'validation',
    message: `The request body must be JSON, sent with 'Content-Type: application/json'; this request sent ${
      sent ? `'Content-Type: ${sent.slice(0, 100)}'` : 'no Content-Type'
    }.`,
  });
}

const tooLarge = (maxBytes: number) =>
  new GatewayError({
    status: 413,
    type: 'request_too_large',
    stage: 'validation',
    message: `The request body is larger than ${maxBytes} bytes. Send less (e.g. smaller images).`,
  });
