/**
 * `npm run bench`: the gateway's added latency and throughput against a bare Node server, and its
 * memory before and after the load. Bounded in count and time; loopback only. Prints a table and
 * writes bench/results/<date>.json and bench/results/latest.json.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startGatewayProcess } from '../testing/gateway-process';
import { measureLatency, measureThroughput, type RequestSpec } from './http-load';

const root = path.resolve(import.meta.dirname, '..');
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 2000);
const WARMUP = 300;
const WORKERS = 16;
const PER_WORKER = Math.max(1, Math.round(SAMPLES / 8));
const SOAK_ROUNDS = 4;

function residentMegabytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round((kilobytes / 1024) * 10) / 10;
}

async function startBaseline(): Promise<{ url: string; pid: number; stop(): void }> {
  const child = spawn(path.join(root, 'node_modules', '.bin', 'tsx'), [path.join(root, 'bench', 'baseline-server.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())));
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => child.kill('SIGTERM') };
}

async function main(): Promise<void> {
  const gateway = await startGatewayProcess({
    environment: { GATEWAY_LOG_LEVEL: 'info', GATEWAY_SIM_TOKENS_PER_SECOND: '0', GATEWAY_SETTLE_INTERVAL_MS: '1000' },
  });
  const baseline = await startBaseline();
  try {
    const { key } = await gateway.createKey(['--kind', 'account', '--limit-usd', '1000']);
    const auth = { authorization: `Bearer ${key}` };
    const chatBody = JSON.stringify({ model: 'sim/echo-mini', messages: [{ role: 'user', content: 'ping' }], max_tokens: 6, temperature: 0 });
    const chat: RequestSpec = { method: 'POST', path: '/v1/chat/completions', headers: auth, body: chatBody };
    const gatewayPid = fs.existsSync(`/proc/${gateway.pid}/status`) ? gateway.pid : null;

    const rssBefore = gatewayPid ? residentMegabytes(gatewayPid) : null;
    const results = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown', node: process.version },
      samples: SAMPLES,
      latency_ms: {
        baseline_chat: await measureLatency(baseline.url, chat, SAMPLES, WARMUP),
        gateway_chat: await measureLatency(gateway.baseUrl, chat, SAMPLES, WARMUP),
        gateway_models: await measureLatency(gateway.baseUrl, { method: 'GET', path: '/v1/models' }, SAMPLES, WARMUP),
        gateway_balance: await measureLatency(gateway.baseUrl, { method: 'GET', path: '/v1/balance', headers: auth }, SAMPLES, WARMUP),
      },
      throughput: {
        baseline_chat: await measureThroughput(baseline.url, chat, WORKERS, PER_WORKER),
        gateway_chat: await measureThroughput(gateway.baseUrl, chat, WORKERS, PER_WORKER),
      },
      gateway_rss_mb: { before: rssBefore, after: gatewayPid ? residentMegabytes(gatewayPid) : null, soak: [] as number[] },
      added_latency_ms: { p50: 0, p99: 0 },
    };
    // Memory must stay flat under sustained load, not grow with the request count.
    for (let round = 0; round < SOAK_ROUNDS && gatewayPid; round += 1) {
      await measureThroughput(gateway.baseUrl, chat, WORKERS, PER_WORKER);
      results.gateway_rss_mb.soak.push(residentMegabytes(gatewayPid));
    }
    results.added_latency_ms = {
      p50: round(results.latency_ms.gateway_chat.p50 - results.latency_ms.baseline_chat.p50),
      p99: round(results.latency_ms.gateway_chat.p99 - results.latency_ms.baseline_chat.p99),
    };

    printTable(results);
    const folder = path.join(root, 'bench', 'results');
    fs.mkdirSync(folder, { recursive: true });
    const text = `${JSON.stringify(results, null, 2)}\n`;
    fs.writeFileSync(path.join(folder, `${results.date.replace(/[:.]/g, '-')}.json`), text);
    fs.writeFileSync(path.join(folder, 'latest.json'), text);
  } finally {
    baseline.stop();
    await gateway.stop();
  }
}

const round = (value: number) => Math.round(value * 1000) / 1000;

function printTable(results: {
  latency_ms: Record<string, { p50: number; p90: number; p99: number; mean: number }>;
  throughput: Record<string, { perSecond: number; requests: number; workers: number }>;
  gateway_rss_mb: { before: number | null; after: number | null; soak: number[] };
  added_latency_ms: { p50: number; p99: number };
}): void {
  const lines = ['scenario                 p50 ms   p90 ms   p99 ms   mean ms'];
  for (const [name, value] of Object.entries(results.latency_ms)) {
    lines.push(`${name.padEnd(22)} ${[value.p50, value.p90, value.p99, value.mean].map((n) => n.toFixed(3).padStart(8)).join(' ')}`);
  }
  lines.push('', 'throughput               req/s  (requests, workers)');
  for (const [name, value] of Object.entries(results.throughput)) {
    lines.push(`${name.padEnd(22)} ${String(value.perSecond).padStart(7)}  (${value.requests}, ${value.workers})`);
  }
  lines.push(
    '',
    `gateway added latency: p50 ${results.added_latency_ms.p50} ms, p99 ${results.added_latency_ms.p99} ms`,
    `gateway RSS: ${results.gateway_rss_mb.before ?? '?'} MB before, ${results.gateway_rss_mb.after ?? '?'} MB after the load, ` +
      `then ${results.gateway_rss_mb.soak.join(' / ') || '?'} MB after each of ${SOAK_ROUNDS} more rounds of ${WORKERS * PER_WORKER} requests`,
  );
  console.log(lines.join('\n'));
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${(error as Error).message}`);
  process.exit(1);
});
