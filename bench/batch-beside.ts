/**
 * A batch beside interactive traffic (docs/batches.md): interactive chat latency through a real
 * gateway process, first alone, then with a large batch running on the same key's account. The
 * batch must not raise interactive latency beyond noise: its runner yields to interactive
 * requests. Simulated models (no upstream), so the figures are the gateway's own work.
 *
 * Usage: npm run --silent bench:batch   (also run as part of `npm run bench`)
 *   writes bench/results/batch-<date>.json and bench/results/batch-latest.json
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startGatewayProcess } from '../testing/gateway-process';

export type BatchBesideResults = {
  date: string;
  interactiveRequests: number;
  concurrency: number;
  batchLines: number;
  alone: { p50: number; p99: number };
  beside: { p50: number; p99: number };
  /** Lines of the batch that ended while the interactive requests ran beside it. */
  linesDuring: number;
};

const REQUESTS = 400;
const CONCURRENCY = 4;
const LINES = 5_000;

const percentile = (sorted: number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;

async function interactiveLatencies(
  baseUrl: string,
  key: string,
): Promise<{ p50: number; p99: number }> {
  const latencies: number[] = [];
  let next = 0;
  const body = JSON.stringify({
    model: 'sim/chat-standard',
    messages: [{ role: 'user', content: 'A short interactive question' }],
    max_tokens: 16,
  });
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        next += 1;
        const started = performance.now();
        const response = await fetch(`${baseUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body,
        });
        await response.text();
        if (response.status !== 200)
          throw new Error(`interactive request: HTTP ${response.status}`);
        latencies.push(performance.now() - started);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}

async function finishedLines(baseUrl: string, key: string, id: string): Promise<number> {
  const response = await fetch(`${baseUrl}/v1/batches/${id}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const batch = (await response.json()) as {
    request_counts: { completed: number; failed: number };
  };
  return batch.request_counts.completed + batch.request_counts.failed;
}

export async function measureBatchBeside(): Promise<BatchBesideResults> {
  const gateway = await startGatewayProcess();
  try {
    const interactive = (await gateway.createKey(['--kind', 'account', '--limit-usd', '100'])).key;
    const batchKey = (await gateway.createKey(['--kind', 'account', '--limit-usd', '100'])).key;
    // Warm up, then alone.
    await interactiveLatencies(gateway.baseUrl, interactive);
    const alone = await interactiveLatencies(gateway.baseUrl, interactive);

    const lines = Array.from({ length: LINES }, (_, index) =>
      JSON.stringify({
        custom_id: `line-${index}`,
        method: 'POST',
        url: '/v1/chat/completions',
        body: {
          model: 'sim/chat-standard',
          messages: [{ role: 'user', content: `Classify item ${index}` }],
          max_tokens: 16,
        },
      }),
    ).join('\n');
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([lines]), 'bench.jsonl');
    const headers = { authorization: `Bearer ${batchKey}` };
    const file = (await (
      await fetch(`${gateway.baseUrl}/v1/files`, { method: 'POST', headers, body: form })
    ).json()) as { id: string };
    const batch = (await (
      await fetch(`${gateway.baseUrl}/v1/batches`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({
          input_file_id: file.id,
          endpoint: '/v1/chat/completions',
          completion_window: '24h',
        }),
      })
    ).json()) as { id: string };
    const before = await finishedLines(gateway.baseUrl, batchKey, batch.id);
    const beside = await interactiveLatencies(gateway.baseUrl, interactive);
    const after = await finishedLines(gateway.baseUrl, batchKey, batch.id);
    return {
      date: new Date().toISOString(),
      interactiveRequests: REQUESTS,
      concurrency: CONCURRENCY,
      batchLines: LINES,
      alone,
      beside,
      linesDuring: after - before,
    };
  } finally {
    await gateway.stop();
  }
}

const ms = (value: number) => value.toFixed(2);

/** The report's section. */
export function formatBatchBeside(results: BatchBesideResults): string {
  return [
    `A batch beside interactive traffic (${results.interactiveRequests} chat requests at c=${results.concurrency}, sim/chat-standard):`,
    `  alone                    p50 ${ms(results.alone.p50)} ms, p99 ${ms(results.alone.p99)} ms`,
    `  beside a ${results.batchLines}-line batch  p50 ${ms(results.beside.p50)} ms, p99 ${ms(results.beside.p99)} ms` +
      ` (${results.linesDuring} lines ended meanwhile)`,
  ].join('\n');
}

if (process.argv[1]?.endsWith('batch-beside.ts')) {
  const results = await measureBatchBeside();
  console.log(formatBatchBeside(results));
  const folder = path.join(import.meta.dirname, 'results');
  fs.mkdirSync(folder, { recursive: true });
  const text = `${JSON.stringify(results, null, 2)}\n`;
  const file = path.join(folder, `batch-${results.date.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, text);
  fs.writeFileSync(path.join(folder, 'batch-latest.json'), text);
  console.log(`Written: bench/results/${path.basename(file)} (and batch-latest.json).`);
}
