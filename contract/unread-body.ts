/**
 * Reading and discarding the rest of a refused request's body, bounded in bytes, in time and in
 * rate per owner (an account, or an address before a key is known), for the gateway and the BFF.
 * Why: docs/decisions/0010-bounded-reads-of-refused-bodies.md
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export type UnreadBodyLimits = {
  /** Bytes of the rest of a body still read and discarded after the answer. */
  bytes: number;
  /** How long they may take. */
  ms: number;
  /** Bytes a second one owner's unread bodies are read at, all of them together. */
  bytesPerSecond: number;
};

/**
 * The bound for a server whose largest body is `maxBodyBytes`: twice that, in 30 s, and one such
 * body a second per owner (so one refused body of the largest size still goes at once).
 */
export function unreadBodyLimits(maxBodyBytes: number): UnreadBodyLimits {
  return { bytes: 2 * maxBodyBytes, ms: 30_000, bytesPerSecond: maxBodyBytes };
}

/** True when the request's headers announce a body (chunked, or a length above zero). */
export function declaresBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (!!length && length !== '0');
}

const owners = new WeakMap<IncomingMessage, string>();

/** Whose budget the rest of this request's body is read from (an account, once a key is known). */
export function ownUnreadBody(request: IncomingMessage, owner: string): void {
  owners.set(request, owner);
}

const ownerOf = (request: IncomingMessage, socket: Socket) =>
  owners.get(request) ?? `address ${socket.remoteAddress ?? 'unknown'}`;

/**
 * What one owner may still have read, in bytes: refilled at the owner's rate up to one second's
 * worth, and charged after the fact with what its sockets read, so it goes below zero. The debt
 * carries over (a window that forgave it would let an owner with many connections, each reading
 * its socket buffer before being paused again, get many times its rate).
 */
type Allowance = { bytes: number; at: number };

export class OwnerRates {
  private readonly owners = new Map<string, Allowance>();
  private sweptAt = 0;

  constructor(private readonly bytesPerSecond: number) {}

  /** Owners remembered now (those not back to a full allowance when last seen). */
  get size(): number {
    return this.owners.size;
  }

  /** Charges `read` bytes to the owner; true while it is within its rate. */
  charge(owner: string, read: number, now = Date.now()): boolean {
    const allowance = this.owners.get(owner) ?? { bytes: this.bytesPerSecond, at: now };
    allowance.bytes = Math.min(
      this.bytesPerSecond,
      allowance.bytes + ((now - allowance.at) / 1000) * this.bytesPerSecond,
    );
    allowance.at = now;
    allowance.bytes -= read;
    // A full allowance is what a new owner gets: nothing to remember.
    if (allowance.bytes >= this.bytesPerSecond) this.owners.delete(owner);
    else this.owners.set(owner, allowance);
    // At most once a second: with many owners in debt at once, a sweep on every check would
    // cost more than the reading it bounds.
    if (this.owners.size > FORGET_ABOVE && now - this.sweptAt >= 1000) this.forgetRefilled(now);
    return allowance.bytes > 0;
  }

  /** Owners whose allowance has refilled by now are new owners again (addresses come and go). */
  private forgetRefilled(now: number): void {
    this.sweptAt = now;
    for (const [owner, allowance] of this.owners) {
      const refilled = allowance.bytes + ((now - allowance.at) / 1000) * this.bytesPerSecond;
      if (refilled >= this.bytesPerSecond) this.owners.delete(owner);
    }
  }
}

/** Owners remembered before the refilled ones are looked for. */
const FORGET_ABOVE = 1_000;

/**
 * Returns the function a server calls for each request as it arrives: after an answer that left
 * the body unread, the rest is read up to the limits, at the owner's rate, or the connection is
 * closed. One per server: the owners' rates are its own.
 */
export function unreadBodyLimiter(
  limits: UnreadBodyLimits,
): (request: IncomingMessage, response: ServerResponse) => void {
  const rates = new OwnerRates(limits.bytesPerSecond);
  return (request, response) => {
    // A request without a body (most GETs) has nothing to leave unread: no listener for it.
    if (!declaresBody(request)) return;
    // Taken now: a reader that destroys the request takes it off the request.
    const socket = request.socket;
    response.once('finish', () => {
      if (request.complete || socket.destroyed) return;
      if (request.destroyed) {
        // Node reads no more of a destroyed request's connection, and nothing can answer on it
        // again: closed, or its client's next request would wait for the keep-alive timeout.
        socket.destroy();
        return;
      }
      // A reader that stopped at its limit (Express's body parser) leaves the request paused, and
      // Node discards only a body nobody began to read: without this the rest would sit on the
      // wire, and a client that sends it all before reading would never see the answer.
      if (request.readableFlowing !== true) request.resume();
      const owner = ownerOf(request, socket);
      // Node discards the body inside its parser, where no chunk can be counted: the socket's
      // byte count is looked at instead, often enough that little more than the bound gets
      // through.
      const start = socket.bytesRead;
      let counted = start;
      const deadline = Date.now() + limits.ms;
      let paused = false;
      const charge = () => {
        const read = socket.bytesRead - counted;
        counted += read;
        return rates.charge(owner, read);
      };
      const check = () => {
        if (socket.bytesRead - start > limits.bytes || Date.now() >= deadline) {
          stop();
          socket.destroy();
          return;
        }
        const within = charge();
        // Paused again on every check: something else (Node's own flow) may have resumed it.
        if (!within) socket.pause();
        else if (paused) socket.resume();
        paused = !within;
      };
      const timer = setInterval(check, CHECK_EVERY_MS);
      timer.unref();
      // After Node's own discard has started (it resumes the socket on the next tick), so that
      // an owner already over its rate is paused before any more is read.
      const first = setImmediate(check);
      const stop = () => {
        clearInterval(timer);
        clearImmediate(first);
        request.off('end', stop);
        socket.off('close', stop);
        charge();
        if (paused && !socket.destroyed) socket.resume();
        paused = false;
      };
      request.once('end', stop);
      socket.once('close', stop);
    });
  };
}

const CHECK_EVERY_MS = 10;
