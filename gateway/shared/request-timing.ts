/**
 * Where one request's time goes: the gateway's own work, or waiting on others. What is left after
 * the waits on the upstream (and, for a stream, on a client that reads slowly) is the time the
 * gateway itself added: the answer's `x-gateway-overhead-ms`, the record's `overhead_ms`.
 */
export class RequestTiming {
  /** Milliseconds spent waiting on the provider: its call until its answer began, each next event, retry waits. */
  private upstreamMs = 0;
  /** Milliseconds spent waiting for a slow client to take what was written. */
  private clientMs = 0;

  /** `startedAt`: `performance.now()` when the request arrived. */
  constructor(readonly startedAt: number = performance.now()) {}

  /**
   * Counts the time since `began` (a `performance.now()`) as spent waiting on the upstream. Called
   * in a `finally` after the await, not around it: no extra promise on each event's path.
   */
  waitedOnUpstream(began: number): void {
    this.upstreamMs += performance.now() - began;
  }

  /** Counts the time since `began` as spent waiting for a slow client to read. */
  waitedOnClient(began: number): void {
    this.clientMs += performance.now() - began;
  }

  /** Milliseconds since the request arrived. */
  elapsedMs(now = performance.now()): number {
    return now - this.startedAt;
  }

  /** The gateway's own time so far, in milliseconds to 0.01, never below 0. */
  overheadMs(now = performance.now()): number {
    const own = this.elapsedMs(now) - this.upstreamMs - this.clientMs;
    return Math.max(0, Math.round(own * 100) / 100);
  }
}
