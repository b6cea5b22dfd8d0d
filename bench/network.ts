/**
 * The networked scenario (docs/scale-out.md, "Across machines"): the gateway on PostgreSQL and
 * Redis reached through delaying proxies on loopback (testing/pausable-proxy.ts), one instance
 * and three (`serve --workers 3`), at several round-trip times, against the embedded SQLite
 * gateway on the same run. Non-streamed chat completions to the benchmark's mock upstream: c=1
 * p50 and p99, c=32 throughput.
 *
 *   npm run bench:network                 this scenario alone (about five minutes: three rounds)
 *   npm run bench:network -- --quick      one round, under two minutes, rougher figures
 *   npm run bench                         runs one round of it too, after the other scenarios
 *
 * PostgreSQL and Redis are the ones at GATEWAY_TEST_DATABASE_URL and GATEWAY_TEST_REDIS_URL (the
 * local ones by default), in a schema and key prefix of this run's own, removed at the end.
 * Writes bench/results/network-<date>.json and prints a table.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startGatewayProcess, type GatewayProcess } from '../testing/gateway-process';
import { startPausableProxy, symmetricDelay, type PausableProxy } from '../testing/pausable-proxy';
import {
  createTestSchema,
  deleteKeys,
  testRedisClient,
  testRedisPrefix,
  testRedisUrl,
  type TestSchema,
} from '../testing/upstreams/shared-services';
import {
  chatRequests,
  checkWiring,
  gatewayEnvironment,
  MODEL,
  providersFile,
  UPSTREAM_KEY,
  type Requests,
} from './bench-setup';
import type { ClosedResult } from './load-protocol';
import {
  root,
  spawnTypeScript,
  startAnnouncingService,
  startLoadWorker,
  stopperOf,
  type LoadWorker,
  type Service,
} from './processes';

/**
 * Round trips (ms) the proxies add, each split evenly between the two directions. 5 ms is more
 * than a zone's, but on a busy machine the round trips an answer waits for show best there.
 */
export const NETWORK_RTTS_MS = [0, 0.5, 1, 2, 5];
const INSTANCES = [1, 3];

export type NetworkRow = {
  mode: 'sqlite' | 'postgres+redis';
  instances: number;
  /** The round trip the proxies add; null for SQLite (no network). */
  rttMs: number | null;
  /**
   * The round trip they added in fact, on this machine at the time: the median of sequential
   * `SELECT 1` through the proxy less the median without it, the least over the rounds. Timers
   * come late on a busy machine.
   */
  measuredRttMs: number | null;
  c1: { p50: number; p99: number; perSecond: number };
  c32: { perSecond: number; p50: number; p99: number; failed: number };
};

export type NetworkResults = {
  date: string;
  quick: boolean;
  /** Each figure is the median of this many runs, taken in rounds over every configuration. */
  rounds: number;
  cpus: number;
  /** The machine's 1-minute load average at the end: above the CPUs, figures are the machine's. */
  loadAverage: number;
  rows: NetworkRow[];
  /**
   * Per instance count and round trip: the c=1 p50 added over the same instances without delay,
   * divided by the round trip (the round trips a request waits for, as the answer feels them),
   * and c=32 throughput as a share of the figure without delay.
   */
  derived: Array<{
    instances: number;
    rttMs: number;
    addedP50Ms: number;
    addedP50PerRtt: number;
    /** The same over the round trip measured (`measuredRttMs`). */
    addedP50PerMeasuredRtt: number;
    throughputShare: number;
  }>;
};

const round = (value: number, places = 2) => Math.round(value * 10 ** places) / 10 ** places;

function progress(text: string): void {
  process.stderr.write(`bench network: ${text}\n`);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

/** The median of 40 sequential `SELECT 1` on one connection to `url`, in ms. */
async function pingPostgres(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const times: number[] = [];
    for (let ping = 0; ping < 40; ping += 1) {
      const started = performance.now();
      await client.query('SELECT 1');
      times.push(performance.now() - started);
    }
    return median(times);
  } finally {
    await client.end();
  }
}

type Measured = Pick<NetworkRow, 'c1' | 'c32'>;

/** One configuration at c=1 then c=32, after a warm-up. */
async function measure(
  load: LoadWorker,
  requests: Requests,
  seconds: { warmup: number; c1: number; c32: number },
): Promise<Measured> {
  const request = requests.plain;
  await load.run({ kind: 'closed', request, connections: 8, seconds: seconds.warmup });
  const c1 = await load.run<ClosedResult>({
    kind: 'closed',
    request,
    connections: 1,
    seconds: seconds.c1,
  });
  const c32 = await load.run<ClosedResult>({
    kind: 'closed',
    request,
    connections: 32,
    seconds: seconds.c32,
  });
  return {
    c1: { p50: c1.latency.p50, p99: c1.latency.p99, perSecond: c1.perSecond },
    c32: {
      perSecond: c32.perSecond,
      p50: c32.latency.p50,
      p99: c32.latency.p99,
      failed: c32.failed + Object.values(c32.statuses).reduce((sum, count) => sum + count, 0),
    },
  };
}

/** The scenario, on a mock upstream and load worker of the caller's, or its own. */
export async function measureNetwork(
  options: { quick?: boolean; rounds?: number; mockUrl?: string; load?: LoadWorker } = {},
): Promise<NetworkResults> {
  const quick = options.quick ?? false;
  const seconds = quick ? { warmup: 0.5, c1: 2, c32: 2 } : { warmup: 0.5, c1: 2, c32: 2 };
  const rounds = options.rounds ?? (quick ? 1 : 3);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-bench-network-'));
  const services: Service[] = [];
  const gateways = new Set<GatewayProcess>();
  const proxies: PausableProxy[] = [];
  let ownLoad: LoadWorker | null = null;
  let schema: TestSchema | null = null;
  const prefix = testRedisPrefix('bench-network');
  const stopAll = stopperOf(folder, () => [ownLoad, ...services, ...gateways]);
  try {
    let mockUrl = options.mockUrl;
    if (!mockUrl) {
      const mock = await startAnnouncingService(
        'mock upstream',
        spawnTypeScript('bench/mock-upstream.ts', []),
      );
      services.push(mock);
      mockUrl = mock.url;
    }
    const load = options.load ?? (ownLoad = await startLoadWorker());
    const providersPath = path.join(folder, 'providers.json');
    fs.writeFileSync(providersPath, JSON.stringify(providersFile(mockUrl)));
    const environment = {
      ...gatewayEnvironment,
      GATEWAY_PROVIDERS: providersPath,
      BENCH_UPSTREAM_KEY: UPSTREAM_KEY,
    };
    const start = async (extra: Record<string, string>, serveArgs: string[] = []) => {
      const gateway = await startGatewayProcess({
        environment: { ...environment, ...extra },
        serveArgs,
      });
      gateways.add(gateway);
      const { key } = await gateway.createKey(['--kind', 'account', '--limit-usd', '100000']);
      const requests = chatRequests(
        `${gateway.baseUrl}/v1/chat/completions`,
        { authorization: `Bearer ${key}` },
        MODEL,
      );
      await checkWiring('the gateway', requests);
      return { gateway, requests };
    };
    const stop = async (gateway: GatewayProcess) => {
      await gateway.stop();
      gateways.delete(gateway);
    };

    // Rounds over every configuration, each figure the median over the rounds: a busy machine's
    // load comes in waves, which would otherwise land on one configuration.
    const samples = new Map<string, { row: Omit<NetworkRow, 'c1' | 'c32'>; runs: Measured[] }>();
    const sample = async (row: Omit<NetworkRow, 'c1' | 'c32'>, requests: Requests) => {
      const id = `${row.mode} ${row.instances} ${row.rttMs}`;
      const entry = samples.get(id) ?? { row, runs: [] };
      samples.set(id, entry);
      entry.runs.push(await measure(load, requests, seconds));
      if (row.measuredRttMs !== null) {
        entry.row.measuredRttMs = Math.min(entry.row.measuredRttMs ?? Infinity, row.measuredRttMs);
      }
    };

    progress('starting the embedded SQLite gateway');
    const sqlite = await start({});
    schema = await createTestSchema('bench_network');
    const database = new URL(schema.url);
    const redis = new URL(testRedisUrl);
    const postgresProxy = await startPausableProxy({
      host: database.hostname,
      port: Number(database.port || 5432),
    });
    const redisProxy = await startPausableProxy({
      host: redis.hostname,
      port: Number(redis.port || 6379),
    });
    proxies.push(postgresProxy, redisProxy);
    database.port = String(postgresProxy.port);
    redis.port = String(redisProxy.port);
    const shared = {
      GATEWAY_DATABASE_URL: database.toString(),
      GATEWAY_REDIS_URL: redis.toString(),
      GATEWAY_REDIS_PREFIX: prefix,
      GATEWAY_KEY_PEPPER: crypto.randomBytes(24).toString('base64url'),
    };
    for (const instances of INSTANCES) {
      const running = await start(shared, instances > 1 ? ['--workers', String(instances)] : []);
      for (let turn = 1; turn <= rounds; turn += 1) {
        if (instances === 1) {
          progress(`round ${turn} of ${rounds}: the embedded SQLite gateway`);
          const row = { mode: 'sqlite', instances: 1, rttMs: null, measuredRttMs: null } as const;
          await sample(row, sqlite.requests);
        }
        for (const rttMs of NETWORK_RTTS_MS) {
          progress(`round ${turn} of ${rounds}: ${instances} instance(s), ${rttMs} ms round trip`);
          for (const proxy of proxies) proxy.setDelay(symmetricDelay(rttMs));
          const direct = await pingPostgres(schema.url);
          const proxied = await pingPostgres(database.toString());
          const row = { mode: 'postgres+redis', instances, rttMs } as const;
          await sample({ ...row, measuredRttMs: round(proxied - direct, 3) }, running.requests);
        }
      }
      for (const proxy of proxies) proxy.setDelay(symmetricDelay(0));
      await stop(running.gateway);
    }
    await stop(sqlite.gateway);
    const rows = [...samples.values()].map(({ row, runs }): NetworkRow => {
      const of = (pick: (run: Measured) => number) => round(median(runs.map(pick)));
      return {
        ...row,
        c1: {
          p50: of((run) => run.c1.p50),
          p99: of((run) => run.c1.p99),
          perSecond: of((run) => run.c1.perSecond),
        },
        c32: {
          perSecond: of((run) => run.c32.perSecond),
          p50: of((run) => run.c32.p50),
          p99: of((run) => run.c32.p99),
          failed: runs.reduce((sum, run) => sum + run.c32.failed, 0),
        },
      };
    });
    return {
      date: new Date().toISOString(),
      quick,
      rounds,
      cpus: os.cpus().length,
      loadAverage: os.loadavg()[0]!,
      rows,
      derived: derive(rows),
    };
  } finally {
    await stopAll();
    await Promise.all(proxies.map((proxy) => proxy.close()));
    await schema?.drop().catch(() => undefined);
    const client = testRedisClient();
    await deleteKeys(client, prefix).catch(() => undefined);
    client.disconnect();
  }
}

function derive(rows: NetworkRow[]): NetworkResults['derived'] {
  return rows.flatMap((row) => {
    if (row.mode !== 'postgres+redis' || !row.rttMs) return [];
    const base = rows.find(
      (other) => other.mode === row.mode && other.instances === row.instances && other.rttMs === 0,
    )!;
    const addedP50Ms = row.c1.p50 - base.c1.p50;
    return [
      {
        instances: row.instances,
        rttMs: row.rttMs,
        addedP50Ms: round(addedP50Ms),
        addedP50PerRtt: round(addedP50Ms / row.rttMs),
        addedP50PerMeasuredRtt: round(
          addedP50Ms / Math.max(0.001, row.measuredRttMs! - base.measuredRttMs!),
        ),
        throughputShare: round(row.c32.perSecond / base.c32.perSecond),
      },
    ];
  });
}

/** The report's section: one line per configuration, then the derived figures. */
export function formatNetwork(results: NetworkResults): string {
  const lines = [
    `Across machines (PostgreSQL and Redis behind delaying proxies; ${results.cpus} CPUs, load ${results.loadAverage.toFixed(1)}, medians of ${results.rounds} round(s)${results.quick ? ', --quick' : ''})`,
    'mode             instances  RTT ms  measured  c=1 p50 ms  c=1 p99 ms  c=32 req/s  c=32 p99 ms',
  ];
  for (const row of results.rows) {
    lines.push(
      [
        row.mode.padEnd(16),
        String(row.instances).padStart(9),
        (row.rttMs === null ? '-' : String(row.rttMs)).padStart(6),
        (row.measuredRttMs === null ? '-' : row.measuredRttMs.toFixed(2)).padStart(8),
        row.c1.p50.toFixed(2).padStart(10),
        row.c1.p99.toFixed(2).padStart(10),
        String(Math.round(row.c32.perSecond)).padStart(10),
        row.c32.p99.toFixed(1).padStart(11),
      ].join('  ') + (row.c32.failed > 0 ? `  (${row.c32.failed} failed)` : ''),
    );
  }
  lines.push(
    '',
    'instances  RTT ms  added c=1 p50 ms  added p50 / RTT  / measured RTT  c=32 share of 0 ms',
  );
  for (const row of results.derived) {
    lines.push(
      [
        String(row.instances).padStart(9),
        String(row.rttMs).padStart(6),
        row.addedP50Ms.toFixed(2).padStart(16),
        row.addedP50PerRtt.toFixed(2).padStart(15),
        row.addedP50PerMeasuredRtt.toFixed(2).padStart(14),
        `${Math.round(row.throughputShare * 100)} %`.padStart(18),
      ].join('  '),
    );
  }
  return lines.join('\n');
}

/** Writes the results beside the benchmark's others. */
export function writeNetworkResults(results: NetworkResults): string {
  const folder = path.join(root, 'bench', 'results');
  fs.mkdirSync(folder, { recursive: true });
  const file = path.join(folder, `network-${results.date.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  return path.relative(root, file);
}

if (process.argv[1]?.endsWith('network.ts')) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  measureNetwork({ quick: values.quick })
    .then((results) => {
      console.log(formatNetwork(results));
      console.log(`\nWritten: ${writeNetworkResults(results)}`);
    })
    .catch((error: unknown) => {
      console.error(`bench network failed: ${(error as Error).message}`);
      process.exit(1);
    });
}
