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

  /** Awaits `pending`, counting the wait as the upstream's. */
  onUpstream<T>(pending: Promise<T>): Promise<T> {
    return this.waited(pending, (milliseconds) => (this.upstreamMs += milliseconds));
  }

  /** Awaits `pending`, counting the wait as the client's. */
  onClient<T>(pending: Promise<T>): Promise<T> {
    return this.waited(pending, (milliseconds) => (this.clientMs += milliseconds));
  }

  private async waited<T>(pending: Promise<T>, add: (milliseconds: number) => void): Promise<T> {
    const began = performance.now();
    try {
      return await pending;
    } finally {
      add(performance.now() - began);
    }
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
