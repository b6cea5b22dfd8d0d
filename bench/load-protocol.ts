/**
 * What the benchmark asks of its load worker (bench/load-worker.ts, a process of its own) and
 * what it answers: one JSON object per line each way. Latencies are milliseconds.
 */

/** One HTTP request, sent the same way every time. */
export type RequestSpec = {
  url: string;
  headers: Record<string, string>;
  body: string;
};

export type LoadJob =
  /** Closed loop (autocannon): `connections` clients, each sending its next request on an answer. */
  | { kind: 'closed'; request: RequestSpec; connections: number; seconds: number }
  /**
   * Open loop at a fixed rate. `paced` spaces requests evenly (every 1/rate s) whatever the
   * answers do; `autocannon` uses its `overallRate`, which sends each connection's share of a
   * second back to back at the start of the second.
   */
  | {
      kind: 'rate';
      engine: 'paced' | 'autocannon';
      request: RequestSpec;
      rate: number;
      seconds: number;
    }
  /**
   * `concurrency` streams open at once, each followed by the next until `seconds` are over,
   * after one unmeasured round; the clients' starts are spread over `staggerMs`.
   */
  | {
      kind: 'streams';
      request: RequestSpec;
      concurrency: number;
      seconds: number;
      staggerMs: number;
    };

export type Percentiles = {
  count: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
};

export type ClosedResult = {
  kind: 'closed';
  /** Successful answers per second over the run. */
  perSecond: number;
  ok: number;
  failed: number;
  /** Status codes other than 2xx, with their counts. */
  statuses: Record<string, number>;
  seconds: number;
  latency: Percentiles;
};

export type RateResult = {
  kind: 'rate';
  rate: number;
  /** Answers per second actually completed. */
  achieved: number;
  ok: number;
  failed: number;
  statuses: Record<string, number>;
  /** Sending stopped early: more than a second's worth of requests were waiting for answers. */
  overloaded: boolean;
  latency: Percentiles;
};

export type StreamsResult = {
  kind: 'streams';
  concurrency: number;
  streams: number;
  failed: number;
  statuses: Record<string, number>;
  /** From sending the request to the first chunk with content. */
  ttft: Percentiles;
  /** Between consecutive content chunks of one stream, as the client saw them arrive. */
  gaps: Percentiles;
  /** Content chunks per stream (mean): fewer than the upstream sent means chunks were merged. */
  chunksPerStream: number;
  /** Share of content chunks that arrived in the same read as the chunk before them. */
  coalesced: number;
};

export type LoadResult = ClosedResult | RateResult | StreamsResult;

export type WorkerAnswer = { ok: true; result: LoadResult } | { ok: false; error: string };

const round = (value: number) => Math.round(value * 1000) / 1000;

/** Exact percentiles (nearest rank) of the samples, rounded to the microsecond. */
export function percentiles(samples: number[]): Percentiles {
  if (samples.length === 0) return { count: 0, p50: NaN, p99: NaN, p999: NaN, max: NaN, mean: NaN };
  const sorted = Float64Array.from(samples).sort();
  const at = (fraction: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    count: sorted.length,
    p50: round(at(0.5)),
    p99: round(at(0.99)),
    p999: round(at(0.999)),
    max: round(sorted[sorted.length - 1]!),
    mean: round(sum / sorted.length),
  };
}
