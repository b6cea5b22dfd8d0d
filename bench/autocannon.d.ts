/**
 * The part of autocannon (9.x, plain JavaScript) the load worker uses: options, the `response`
 * event it emits per answer (with the latency in fractional milliseconds, finer than the
 * whole-millisecond histogram in its result) and the result's counters.
 * @see https://github.com/mcollina/autocannon#api
 */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Options {
      url: string;
      method?: 'GET' | 'POST';
      headers?: Record<string, string>;
      body?: string;
      connections?: number;
      pipelining?: number;
      /** Seconds. */
      duration?: number;
      /** Requests per second over all connections (autocannon spreads them per connection). */
      overallRate?: number;
      /** Seconds before a request counts as timed out. */
      timeout?: number;
    }

    interface Result {
      /** Seconds, measured by autocannon from start to stop. */
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      '2xx': number;
      statusCodeStats: Record<string, { count: number }>;
    }

    interface Instance extends EventEmitter {
      on(
        event: 'response',
        listener: (
          client: unknown,
          statusCode: number,
          bytes: number,
          milliseconds: number,
        ) => void,
      ): this;
      on(event: string, listener: (...args: unknown[]) => void): this;
    }
  }

  function autocannon(
    options: autocannon.Options,
    callback: (error: Error | null, result: autocannon.Result) => void,
  ): autocannon.Instance;

  export = autocannon;
}
