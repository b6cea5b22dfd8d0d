/**
 * `npm run bench:profile`: a CPU profile of the compiled gateway under load, the same way every
 * time. The mock upstream and the gateway are set up as `npm run bench` sets them up
 * (bench/bench-setup.ts); the gateway runs with Node's `--cpu-prof`, takes 2 s of warm-up and then
 * closed-loop load from the load worker (autocannon), and is stopped with SIGTERM so Node writes
 * its profile.
 *
 *   npm run bench:profile                          10 s at 32 connections, plain answers
 *   npm run bench:profile -- --seconds 5 --connections 8
 *   npm run bench:profile -- --stream              streamed answers instead
 *
 * Prints the requests per second, the functions and the sources (npm packages, files) with the
 * most self time; positions in the gateway's bundle (dist/gateway.js) are shown at their source
 * through its source map. Writes bench/results/profile-<date>.cpuprofile, the raw profile, for a
 * flame graph. Everything listens on 127.0.0.1; every process started here is stopped at the end.
 */
import fs from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
import { summariseProfile, type CpuProfile } from './profile-summary';

/** The command's flags, or a one-line error naming the one that is wrong (no stack trace). */
function readFlags(): { seconds: number; connections: number; stream: boolean } {
  try {
    const { values } = parseArgs({
      options: {
        seconds: { type: 'string', default: '10' },
        connections: { type: 'string', default: '32' },
        stream: { type: 'boolean', default: false },
      },
    });
    return { ...closedLoopFlags(values), stream: values.stream };
  } catch (error) {
    console.error(`bench:profile: ${(error as Error).message}`);
    process.exit(2);
  }
}
const flags = readFlags();
const { seconds, connections } = flags;
const WARMUP_SECONDS = 2;
const TOP_FUNCTIONS = 25;
const TOP_SOURCES = 15;
const bundle = path.join(root, 'dist', 'gateway.js');

function progress(text: string): void {
  process.stderr.write(`bench:profile: ${text}\n`);
}

/** The main thread's profile: the largest of the files Node wrote (worker threads write their own). */
function mainThreadProfile(folder: string): string {
  const files = fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => path.join(folder, name));
  if (files.length === 0) throw new Error(`the gateway wrote no .cpuprofile into ${folder}`);
  const largest = files.sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0]!;
  // Node names them CPU.<date>.<time>.<pid>.<thread id>.<sequence>.cpuprofile; thread 0 is main.
  progress(`${files.length} profile(s) written; summarising ${path.basename(largest)}`);
  return largest;
}

/**
 * The profile with the frames of the gateway's bundle moved to their source file and line, by the
 * bundle's source map; unchanged without one. Frames elsewhere (node_modules, Node) are kept.
 */
function atSourcePositions(profile: CpuProfile): CpuProfile {
  const mapFile = `${bundle}.map`;
  if (!fs.existsSync(mapFile)) return profile;
  const map = new SourceMap(JSON.parse(fs.readFileSync(mapFile, 'utf8')) as SourceMapPayload);
  const inBundle = (url: string) =>
    url === bundle || (url.startsWith('file:') && fileURLToPath(url) === bundle);
  return {
    ...profile,
    nodes: profile.nodes.map((node) => {
      const frame = node.callFrame;
      if (!inBundle(frame.url) || frame.lineNumber < 0) return node;
      const entry = map.findEntry(frame.lineNumber, Math.max(0, frame.columnNumber));
      if (!('originalSource' in entry) || !entry.originalSource) return node;
      return {
        ...node,
        callFrame: {
          ...frame,
          url: path.resolve(path.dirname(bundle), entry.originalSource),
          lineNumber: entry.originalLine,
          columnNumber: entry.originalColumn,
        },
      };
    }),
  };
}

const percent = (value: number) => `${value.toFixed(2).padStart(6)} %`;

async function main(): Promise<void> {
  const started = new Date();
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-profile-'));
  const profileFolder = path.join(folder, 'cpu');
  const services: Service[] = [];
  let gateway: GatewayProcess | null = null;
  let worker: LoadWorker | null = null;
  const stopAll = stopperOf(folder, () => [worker, ...services, gateway]);

  try {
    progress('starting the mock upstream, the gateway (with --cpu-prof) and the load worker');
    const mock = await startAnnouncingService(
      'mock upstream',
      spawnTypeScript('bench/mock-upstream.ts', ['--chunks', '16', '--interval-ms', '20']),
    );
    services.push(mock);

    const benchGateway = await startBenchGateway(folder, mock.url, [
      '--cpu-prof',
      `--cpu-prof-dir=${profileFolder}`,
    ]);
    gateway = benchGateway.gateway;
    const { key } = benchGateway;
    worker = await startLoadWorker();

    const requests = chatRequests(
      `${gateway.baseUrl}/v1/chat/completions`,
      { authorization: `Bearer ${key}` },
      MODEL,
    );
    await checkWiring('the gateway', requests);
    const request = flags.stream ? requests.stream : requests.plain;
    const answers = flags.stream ? 'streamed' : 'plain';

    progress(`warming up for ${WARMUP_SECONDS} s`);
    await worker.run({ kind: 'closed', request, connections, seconds: WARMUP_SECONDS });
    progress(`load for ${seconds} s at c=${connections}, ${answers} answers`);
    const load = await worker.run<ClosedResult>({ kind: 'closed', request, connections, seconds });
    if (load.ok === 0) {
      throw new Error(`no request succeeded under load: ${JSON.stringify(load.statuses)}`);
    }

    progress('stopping the gateway (SIGTERM), so Node writes its profile');
    await gateway.stop();
    const written = mainThreadProfile(profileFolder);
    const resultsFolder = path.join(root, 'bench', 'results');
    fs.mkdirSync(resultsFolder, { recursive: true });
    const saved = path.join(
      resultsFolder,
      `profile-${started.toISOString().replace(/:/g, '-')}.cpuprofile`,
    );
    fs.copyFileSync(written, saved);
    const profile = JSON.parse(fs.readFileSync(written, 'utf8')) as CpuProfile;
    const summary = summariseProfile(atSourcePositions(profile));
    const shown = path.relative(root, saved);

    const failures =
      load.failed > 0 ? `, ${load.failed} failed ${JSON.stringify(load.statuses)}` : '';
    console.log(
      `\nrequests/s: ${load.perSecond} (${load.ok} answers in ${load.seconds} s at c=${connections}, ${answers}${failures})`,
    );
    console.log(
      `CPU sampled: ${(summary.totalMicros / 1e6).toFixed(1)} s, of which idle ${summary.idlePercent.toFixed(2)} % ` +
        `(left out below: percentages are of the ${(summary.busyMicros / 1e6).toFixed(1)} s not idle)`,
    );
    console.log(`\nTop ${TOP_FUNCTIONS} functions by self time`);
    for (const row of summary.functions.slice(0, TOP_FUNCTIONS)) {
      console.log(`${percent(row.percent)}  ${row.name.padEnd(40)}  ${row.location}`);
    }
    console.log(`\nTop ${TOP_SOURCES} sources by self time`);
    for (const row of summary.sources.slice(0, TOP_SOURCES)) {
      console.log(`${percent(row.percent)}  ${row.source}`);
    }
    console.log(
      `\nOpen ${shown} in Chrome DevTools (Performance tab, Load profile) or https://www.speedscope.app for a flame graph.`,
    );
  } finally {
    await stopAll();
  }
}

main().catch((error: unknown) => {
  console.error(`bench:profile failed: ${(error as Error).message}`);
  process.exit(1);
});
