/**
 * An answer written while the request's body is still arriving (a refusal before reading it:
 * unknown or disabled key, too large, wrong content type, rate limited). Node then reads the rest
 * of the body off the wire and throws it away, to keep the connection for the next request: right
 * for a few kilobytes, wrong for a hostile client. A flood of 20 MiB bodies with an unknown key
 * cost the gateway milliseconds of CPU each, and a body with no end (chunked, trickled) held the
 * connection until Node's request timeout (five minutes).
 *
 * So such an answer says `Connection: close` when more than a little is still to come: the client
 * sends its next request on another connection, and Node closes this one once the answer is
 * written, reading nothing more. A small rest (a declared length within the bound) is discarded
 * as before, and the connection kept.
 */
import type { IncomingMessage } from 'node:http';

/** The largest rest of a body still read and discarded to keep the connection. */
export const UNREAD_BODY_BYTES = 64 * 1024;

/** The headers an answer to `request`, written now, adds: `Connection: close` or nothing. */
export function unreadBodyHeaders(
  request: IncomingMessage | undefined,
  limitBytes = UNREAD_BODY_BYTES,
): Record<string, string> {
  if (!request || request.complete) return {};
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared <= limitBytes) return {};
  return { connection: 'close' };
}
