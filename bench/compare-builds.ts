/**
 * `npm run bench:compare -- --baseline <git ref>`: this checkout's gateway against an earlier
 * commit's, side by side, in alternating rounds, so that a change is measured against its
 * starting point on the same machine at the same moments. On a shared virtual machine a single
 * run of either is off by tens of percent; alternating rounds and taking medians is what makes a
 * 10% change visible.
 *
 *   npm run bench:compare -- --baseline HEAD~3
 *   npm run bench:compare -- --baseline 8ff7d8b --rounds 6 --seconds 10 --connections 32
 *
 * The baseline is exported with `git archive` into a scratch folder (the repository is not
 * touched), uses this checkout's node_modules, and is compiled with its own build script. Both
 * gateways are routed to the same mock upstream (bench/bench-setup.ts) and loaded by the same
 * load worker (autocannon, closed loop). Per round and build: requests per second, the CPU time
 * per answer of the gateway's main thread and of its whole process (from /proc), and the
 * latency percentiles. Everything listens on 127.0.0.1; every process started is stopped.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { GatewayProcess } from '../testing/gateway-process';
import {
  chatRequests,
  checkWiring,
  closedLoopFlags,
  MODEL,
  startBenchGateway,
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

/** The command's flags, or a one-line error naming the one that is wrong (no stack trace). */
function readFlags(): { baseline: string; rounds: number; seconds: number; connections: number } {
  try {
    const { values } = parseArgs({
      options: {
        baseline: { type: 'string' },
        rounds: { type: 'string', default: '4' },
        seconds: { type: 'string', default: '8' },
        connections: { type: 'string', default: '32' },
      },
    });
    if (!values.baseline) {
      throw new Error('--baseline: name the commit to compare with (e.g. HEAD~1)');
    }
    const rounds = Number(values.rounds);
    if (!Number.isInteger(rounds) || rounds < 1) {
      throw new Error('--rounds: expected a whole number ≥ 1');
    }
    return { baseline: values.baseline, rounds, ...closedLoopFlags(values) };
  } catch (error) {
    console.error(`bench:compare: ${(error as Error).message}`);
    process.exit(2);
  }
}
const { baseline: baselineRef, rounds, seconds, connections } = readFlags();
const WARMUP_SECONDS = 2;

function progress(text: string): void {
  process.stderr.write(`bench:compare: ${text}\n`);
}

/** The baseline's source at `ref`, compiled in `folder`; the path of its gateway bundle. */
function buildBaseline(ref: string, folder: string): string {
  let commit: string;
  try {
    commit = execFileSync('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    throw new Error(`--baseline: '${ref}' is not a commit of this repository`);
  }
  const tree = path.join(folder, 'baseline');
  fs.mkdirSync(tree);
  const archive = path.join(folder, 'baseline.tar');
  execFileSync('git', ['archive', '--format=tar', `--output=${archive}`, commit], { cwd: root });
  execFileSync('tar', ['-xf', archive, '-C', tree]);
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(tree, 'node_modules'), 'dir');
  const script = path.join(tree, 'scripts', 'build.mjs');
  execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const build = await import(${JSON.stringify(script)});
       if (typeof build.buildServer !== 'function') throw new Error('this commit has no buildServer in scripts/build.mjs');
       await build.buildServer();`,
    ],
    { cwd: tree, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const bundle = path.join(tree, 'dist', 'gateway.js');
  if (!fs.existsSync(bundle)) throw new Error(`building ${ref} wrote no ${bundle}`);
  progress(`baseline ${ref} is ${commit.slice(0, 12)}`);
  return bundle;
}

/** User + system CPU time in clock ticks of a process, or of one of its threads. */
function cpuTicks(pid: number, thread?: number): number {
  const file = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  // The command name may hold spaces; the fields after its closing parenthesis do not.
  const fields = fs.readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

const TICKS_PER_SECOND = 100;

type Measured = {
  perSecond: number;
  mainMicros: number;
  processMicros: number;
  p50: number;
  p99: number;
};

async function measure(
  worker: LoadWorker,
  mockUrl: string,
  folder: string,
  bundle: string | undefined,
  register: (gateway: GatewayProcess | null) => void,
): Promise<Measured> {
  const { gateway, key } = await startBenchGateway(folder, mockUrl, [], bundle);
  register(gateway);
  try {
    const requests = chatRequests(
      `${gateway.baseUrl}/v1/chat/completions`,
      { authorization: `Bearer ${key}` },
      MODEL,
    );
    await checkWiring('the gateway', requests);
    const request = requests.plain;
    await worker.run({ kind: 'closed', request, connections, seconds: WARMUP_SECONDS });
    const mainBefore = cpuTicks(gateway.pid, gateway.pid);
    const processBefore = cpuTicks(gateway.pid);
    const load = await worker.run<ClosedResult>({ kind: 'closed', request, connections, seconds });
    const micros = (ticks: number) => (ticks / TICKS_PER_SECOND) * 1e6;
    if (load.ok === 0) throw new Error(`no request succeeded: ${JSON.stringify(load.statuses)}`);
    return {
      perSecond: load.perSecond,
      mainMicros: micros(cpuTicks(gateway.pid, gateway.pid) - mainBefore) / load.ok,
      processMicros: micros(cpuTicks(gateway.pid) - processBefore) / load.ok,
      p50: load.latency.p50,
      p99: load.latency.p99,
    };
  } finally {
    await gateway.stop();
    register(null);
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

function row(label: string, measured: Measured): string {
  return [
    label.padEnd(22),
    measured.perSecond.toFixed(0).padStart(8),
    measured.mainMicros.toFixed(0).padStart(10),
    measured.processMicros.toFixed(0).padStart(13),
    measured.p50.toFixed(2).padStart(8),
    measured.p99.toFixed(2).padStart(8),
  ].join('  ');
}

async function main(): Promise<void> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-compare-'));
  const services: Service[] = [];
  let worker: LoadWorker | null = null;
  let gateway: GatewayProcess | null = null;
  const stopAll = stopperOf(folder, () => [worker, ...services, gateway]);
  try {
    progress(`building ${baselineRef}`);
    const baseline = buildBaseline(baselineRef, folder);
    progress('starting the mock upstream and the load worker');
    const mock = await startAnnouncingService(
      'mock upstream',
      spawnTypeScript('bench/mock-upstream.ts', ['--chunks', '16', '--interval-ms', '20']),
    );
    services.push(mock);
    worker = await startLoadWorker();

    const builds = [
      { name: 'baseline', bundle: baseline as string | undefined, results: [] as Measured[] },
      { name: 'this checkout', bundle: undefined, results: [] as Measured[] },
    ];
    console.log(
      `\n${'round, build'.padEnd(22)}  ${'req/s'.padStart(8)}  ${'main µs/ans'.padStart(10)}  ${'process µs/ans'.padStart(13)}  ${'p50 ms'.padStart(8)}  ${'p99 ms'.padStart(8)}`,
    );
    for (let round = 1; round <= rounds; round += 1) {
      // Alternating which goes first cancels a machine that slows down or speeds up over time.
      const order = round % 2 === 1 ? builds : [...builds].reverse();
      for (const build of order) {
        progress(`round ${round} of ${rounds}: ${build.name}, ${seconds} s at c=${connections}`);
        const measured = await measure(worker, mock.url, folder, build.bundle, (started) => {
          gateway = started;
        });
        build.results.push(measured);
        console.log(row(`${round}, ${build.name}`, measured));
      }
    }
    const summary = builds.map((build) => ({
      name: build.name,
      measured: {
        perSecond: median(build.results.map((result) => result.perSecond)),
        mainMicros: median(build.results.map((result) => result.mainMicros)),
        processMicros: median(build.results.map((result) => result.processMicros)),
        p50: median(build.results.map((result) => result.p50)),
        p99: median(build.results.map((result) => result.p99)),
      },
    }));
    console.log('');
    for (const { name, measured } of summary) console.log(row(`median, ${name}`, measured));
    const [before, after] = summary.map((entry) => entry.measured) as [Measured, Measured];
    const change = (from: number, to: number) =>
      `${to >= from ? '+' : ''}${(((to - from) / from) * 100).toFixed(1)}%`;
    console.log(
      `\nthis checkout against ${baselineRef}: req/s ${change(before.perSecond, after.perSecond)}, ` +
        `main thread CPU per answer ${change(before.mainMicros, after.mainMicros)}, ` +
        `process CPU per answer ${change(before.processMicros, after.processMicros)}, ` +
        `p99 ${change(before.p99, after.p99)} (medians of ${rounds} rounds)`,
    );
  } finally {
    await stopAll();
  }
}

main().catch((error: unknown) => {
  console.error(`bench:compare failed: ${(error as Error).message}`);
  process.exit(1);
});
