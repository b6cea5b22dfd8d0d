/**
 * The benchmark's load generator, in a process of its own so its work never shares an event loop
 * with what it measures. Reads one job (bench/load-protocol.ts) per line on standard input and
 * writes one answer per line on standard output; or, given a job as its argument, runs it once:
 *
 *   tsx bench/load-worker.ts '{"kind":"closed","request":{…},"connections":32,"seconds":5}'
 *
 * Closed-loop load is autocannon's. Latencies come from its per-answer `response` event (fractional
 * milliseconds), not its whole-millisecond histogram, since the gateway's goals are sub-millisecond.
 * Paced open-loop load and streams use undici, which gives each chunk as it is read.
 */
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import {
  percentiles,
  type ClosedResult,
  type LoadJob,
  type LoadResult,
  type RateResult,
  type RequestSpec,
  type StreamsResult,
  type WorkerAnswer,
} from './load-protocol';

/** No answer in this long is a failure: a bounded run never waits on a stuck target. */
const REQUEST_TIMEOUT_MS = 10_000;

const isOk = (status: number) => status >= 200 && status < 300;

function countStatus(statuses: Record<string, number>, status: number | string): void {
  statuses[status] = (statuses[status] ?? 0) + 1;
}

function runClosed(job: Extract<LoadJob, { kind: 'closed' }>): Promise<ClosedResult> {
  const samples: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: job.request.url,
        method: 'POST',
        headers: job.request.headers,
        body: job.request.body,
        connections: job.connections,
        pipelining: 1,
        duration: job.seconds,
        timeout: REQUEST_TIMEOUT_MS / 1000,
      },
      (error, result) => {
        if (error) return reject(error);
        const statuses: Record<string, number> = {};
        for (const [status, { count }] of Object.entries(result.statusCodeStats)) {
          if (!isOk(Number(status))) statuses[status] = count;
        }
        if (result.errors > 0) statuses.error = result.errors;
        resolve({
          kind: 'closed',
          perSecond: Math.round(result['2xx'] / result.duration),
          ok: result['2xx'],
          failed: result.non2xx + result.errors,
          statuses,
          seconds: result.duration,
          latency: percentiles(samples),
        });
      },
    );
    instance.on('response', (_client, status, _bytes, milliseconds) => {
      if (isOk(status)) samples.push(milliseconds);
    });
  });
}

function poolFor(url: string, connections: number): Pool {
  return new Pool(new URL(url).origin, {
    connections,
    pipelining: 1,
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: 60_000,
  });
}

function send(pool: Pool, request: RequestSpec) {
  const url = new URL(request.url);
  return pool.request({
    method: 'POST',
    path: `${url.pathname}${url.search}`,
    headers: request.headers,
    body: request.body,
  });
}

async function runPaced(job: Extract<LoadJob, { kind: 'rate' }>): Promise<RateResult> {
  const pool = poolFor(job.request.url, 128);
  // Connections opened before the clock starts, so the first requests do not pay for them.
  await Promise.all(
    Array.from({ length: Math.min(32, Math.ceil(job.rate / 50)) }, async () => {
      await (await send(pool, job.request)).body.arrayBuffer();
    }),
  );
  const samples: number[] = [];
  const statuses: Record<string, number> = {};
  const total = Math.round(job.rate * job.seconds);
  const spacingMs = 1000 / job.rate;
  const inFlight = new Set<Promise<void>>();
  let failed = 0;
  let overloaded = false;
  let lastAnswer = 0;

  // Each request's latency runs from the moment it is handed to the client, so time it waits
  // for a free connection counts: an open loop does not slow down when the target does.
  const fire = () => {
    const started = performance.now();
    const done = send(pool, job.request)
      .then(async (answer) => {
        await answer.body.arrayBuffer();
        lastAnswer = performance.now();
        if (isOk(answer.statusCode)) samples.push(lastAnswer - started);
        else {
          failed += 1;
          countStatus(statuses, answer.statusCode);
        }
      })
      .catch(() => {
        failed += 1;
        countStatus(statuses, 'error');
      })
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
  };

  const start = performance.now();
  let sent = 0;
  try {
    while (sent < total) {
      const due = Math.min(total, Math.floor((performance.now() - start) / spacingMs) + 1);
      for (; sent < due; sent += 1) fire();
      // More than a second of requests unanswered: the target cannot keep this rate.
      if (inFlight.size > job.rate) {
        overloaded = true;
        break;
      }
      await sleep(1);
    }
    while (inFlight.size > 0) await Promise.all(inFlight);
  } finally {
    await pool.close();
  }
  const seconds = Math.max(lastAnswer - start, 1) / 1000;
  return {
    kind: 'rate',
    rate: job.rate,
    achieved: Math.round(samples.length / seconds),
    ok: samples.length,
    failed,
    statuses,
    overloaded,
    latency: percentiles(samples),
  };
}

function runAutocannonRate(job: Extract<LoadJob, { kind: 'rate' }>): Promise<RateResult> {
  const samples: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: job.request.url,
        method: 'POST',
        headers: job.request.headers,
        body: job.request.body,
        connections: Math.min(32, job.rate),
        overallRate: job.rate,
        duration: job.seconds,
        timeout: REQUEST_TIMEOUT_MS / 1000,
      },
      (error, result) => {
        if (error) return reject(error);
        const statuses: Record<string, number> = {};
        for (const [status, { count }] of Object.entries(result.statusCodeStats)) {
          if (!isOk(Number(status))) statuses[status] = count;
        }
        const achieved = Math.round(result['2xx'] / result.duration);
        resolve({
          kind: 'rate',
          rate: job.rate,
          achieved,
          ok: result['2xx'],
          failed: result.non2xx + result.errors,
          statuses,
          overloaded: achieved < job.rate * 0.95,
          latency: percentiles(samples),
        });
      },
    );
    instance.on('response', (_client, status, _bytes, milliseconds) => {
      if (isOk(status)) samples.push(milliseconds);
    });
  });
}

/**
 * True when an SSE `data:` payload is a chunk whose `content` is a non-empty string. A pattern, not
 * JSON.parse: at c=100 the worker reads thousands of chunks a second and must stay cheap, or
 * its own lateness would show up as the target's.
 */
const nonEmptyContent = /"content":\s*"[^"]/;

async function runStreams(job: Extract<LoadJob, { kind: 'streams' }>): Promise<StreamsResult> {
  const pool = poolFor(job.request.url, job.concurrency);
  const ttfts: number[] = [];
  const gaps: number[] = [];
  const statuses: Record<string, number> = {};
  let streams = 0;
  let failed = 0;
  let contentChunks = 0;
  let coalesced = 0;

  /** One stream, read to its end; counted only when `record` (not during the warm-up round). */
  const oneStream = async (record: boolean) => {
    const started = performance.now();
    const answer = await send(pool, job.request);
    if (!record) {
      await answer.body.arrayBuffer();
      return;
    }
    if (!isOk(answer.statusCode)) {
      await answer.body.arrayBuffer();
      failed += 1;
      countStatus(statuses, answer.statusCode);
      return;
    }
    const decoder = new TextDecoder();
    let pending = '';
    let previous: number | null = null;
    for await (const part of answer.body) {
      // Every event in one read arrived at the same moment: that is what coalescing looks like.
      const arrived = performance.now();
      let inThisRead = 0;
      pending += decoder.decode(part as Buffer, { stream: true });
      let newline: number;
      while ((newline = pending.indexOf('\n')) !== -1) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        if (!line.startsWith('data:') || !nonEmptyContent.test(line)) continue;
        contentChunks += 1;
        if (previous === null) ttfts.push(arrived - started);
        else {
          gaps.push(arrived - previous);
          if (inThisRead > 0) coalesced += 1;
        }
        inThisRead += 1;
        previous = arrived;
      }
    }
    streams += 1;
  };

  let end = 0;
  const client = async () => {
    // Each client starts at its own moment within one chunk interval: streams begun in lock
    // step would send every chunk of every stream in the same millisecond, a burst no real
    // traffic makes.
    await sleep(Math.random() * job.staggerMs);
    while (performance.now() < end) {
      try {
        await oneStream(true);
      } catch {
        failed += 1;
        countStatus(statuses, 'error');
      }
    }
  };
  try {
    // One unmeasured round opens every connection, so TTFT is not a TCP handshake.
    await Promise.all(Array.from({ length: job.concurrency }, () => oneStream(false)));
    end = performance.now() + job.seconds * 1000;
    await Promise.all(Array.from({ length: job.concurrency }, client));
  } finally {
    await pool.close();
  }
  return {
    kind: 'streams',
    concurrency: job.concurrency,
    streams,
    failed,
    statuses,
    ttft: percentiles(ttfts),
    gaps: percentiles(gaps),
    chunksPerStream: streams === 0 ? 0 : Math.round((contentChunks / streams) * 100) / 100,
    coalesced: contentChunks === 0 ? 0 : Math.round((coalesced / contentChunks) * 10_000) / 10_000,
  };
}

function runJob(job: LoadJob): Promise<LoadResult> {
  switch (job.kind) {
    case 'closed':
      return runClosed(job);
    case 'rate':
      return job.engine === 'paced' ? runPaced(job) : runAutocannonRate(job);
    case 'streams':
      return runStreams(job);
    default:
      throw new Error(`unknown job kind: ${JSON.stringify(job)}`);
  }
}

async function answer(line: string): Promise<WorkerAnswer> {
  try {
    return { ok: true, result: await runJob(JSON.parse(line) as LoadJob) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

if (process.argv[2]) {
  process.stdout.write(`${JSON.stringify(await answer(process.argv[2]))}\n`);
} else {
  // One job at a time, in order: two loads at once would measure each other.
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() === '') continue;
    process.stdout.write(`${JSON.stringify(await answer(line))}\n`);
  }
}
