/**
 * An answer written while the request's body is still arriving (a refusal before reading it:
 * unknown or disabled key, no session, too large, wrong content type, rate limited). Node then
 * reads the rest of the body off the wire and throws it away, so the connection can carry the next
 * request, and so a client that sends its whole body before it reads (Python's http.client, Node's
 * own http.request) still gets the answer. That is right for a body of a size the server takes,
 * and wrong without a bound: a body with no end (chunked, or trickled) was read for as long as it
 * came, up to Node's request timeout (five minutes), and a body of any size was read to its end.
 *
 * So the rest is read and discarded up to a bound in bytes and in time, as nginx's lingering close
 * does, and past either the connection is closed (the answer went out before any of this). A
 * client still sending past the bound gets a broken connection, not the answer: it sent more, or
 * for longer, than any request the server takes.
 *
 * Here, not in one box, because both servers (the gateway and the workbench's BFF) take bodies
 * from callers they do not trust and must bound them the same way.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type UnreadBodyLimits = {
  /** Bytes of the rest of a body still read and discarded after the answer. */
  bytes: number;
  /** How long they may take. */
  ms: number;
};

/** The bound for a server whose largest body is `maxBodyBytes`. */
export function unreadBodyLimits(maxBodyBytes: number): UnreadBodyLimits {
  return { bytes: 2 * maxBodyBytes, ms: 30_000 };
}

/** True when the request's headers announce a body (chunked, or a length above zero). */
export function declaresBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (!!length && length !== '0');
}

export function limitUnreadBody(
  request: IncomingMessage,
  response: ServerResponse,
  limits: UnreadBodyLimits,
): void {
  // A request without a body (most GETs) has nothing to leave unread: no listener for it.
  if (!declaresBody(request)) return;
  response.once('finish', () => {
    if (request.complete) return;
    const socket = request.socket;
    if (!socket || socket.destroyed) return;
    // A reader that stopped at its limit (Express's body parser) leaves the request paused, and
    // Node discards only a body nobody began to read: without this the rest would sit on the
    // wire, and a client that sends it all before reading would never see the answer.
    if (request.readableFlowing !== true) request.resume();
    // Node discards the body inside its parser, where no chunk can be counted: the socket's byte
    // count is looked at instead, often enough that little more than the bound gets through.
    const start = socket.bytesRead;
    const deadline = Date.now() + limits.ms;
    const check = () => {
      if (socket.bytesRead - start <= limits.bytes && Date.now() < deadline) return;
      stop();
      socket.destroy();
    };
    const timer = setInterval(check, CHECK_EVERY_MS);
    timer.unref();
    const stop = () => {
      clearInterval(timer);
      request.off('end', stop);
      socket.off('close', stop);
    };
    request.once('end', stop);
    socket.once('close', stop);
  });
}

const CHECK_EVERY_MS = 10;
