/** Bounded load on loopback: sequential latency samples and a fixed-size concurrent run. */
import http from 'node:http';

export type RequestSpec = { method: string; path: string; headers?: Record<string, string>; body?: string };

export type LatencySummary = { count: number; p50: number; p90: number; p99: number; mean: number };

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** One request; resolves with its status once the whole body has arrived. */
export function send(baseUrl: string, spec: RequestSpec): Promise<number> {
  const url = new URL(spec.path, baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: spec.method, agent, headers: { 'content-type': 'application/json', ...spec.headers } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.setTimeout(10_000, () => request.destroy(new Error('timed out')));
    request.end(spec.body);
  });
}

export function summarize(samples: number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
  const round = (value: number) => Math.round(value * 1000) / 1000;
  return {
    count: sorted.length,
    p50: round(at(0.5)),
    p90: round(at(0.9)),
    p99: round(at(0.99)),
    mean: round(sorted.reduce((sum, value) => sum + value, 0) / sorted.length),
  };
}

/** Sequential requests after a warm-up; milliseconds per request. Fails on any non-2xx. */
export async function measureLatency(baseUrl: string, spec: RequestSpec, count: number, warmup: number) {
  for (let index = 0; index < warmup; index += 1) await expectOk(baseUrl, spec);
  const samples: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const started = performance.now();
    await expectOk(baseUrl, spec);
    samples.push(performance.now() - started);
  }
  return summarize(samples);
}

/** `workers` clients sending `perWorker` requests each; requests per second. */
export async function measureThroughput(baseUrl: string, spec: RequestSpec, workers: number, perWorker: number) {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let index = 0; index < perWorker; index += 1) await expectOk(baseUrl, spec);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { requests: workers * perWorker, workers, seconds: Math.round(seconds * 1000) / 1000, perSecond: Math.round((workers * perWorker) / seconds) };
}

async function expectOk(baseUrl: string, spec: RequestSpec): Promise<void> {
  const status = await send(baseUrl, spec);
  if (status < 200 || status >= 300) throw new Error(`${spec.method} ${spec.path} answered ${status}`);
}
