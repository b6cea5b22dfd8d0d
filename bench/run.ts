/**
 * `npm run bench`: the side-by-side benchmark (docs/performance.md). One fast mock upstream, and
 * three targets measured in turn in one run, scenario by scenario: the mock directly, this gateway
 * (a real gateway process whose providers file routes `bench/mock-16` to the mock) and Portkey's
 * open-source gateway in front of the same mock (its custom-host header). Then the workbench BFF in
 * front of this gateway. Load comes from a process of its own (bench/load-worker.ts).
 *
 *   npm run bench                    a few minutes
 *   npm run bench -- --quick         under a minute, rougher figures
 *   npm run bench -- --rate-engine autocannon   fixed rates with autocannon's overallRate
 *   npm run bench -- --chunks 16 --interval-ms 20   the mock's streams (these are the defaults)
 *   npm run bench -- --no-network    without the networked scenario (bench/network.ts, which
 *                                    `npm run bench:network` runs alone)
 *
 * Prints a table; writes bench/results/<date>.json and bench/results/latest.json. Everything
 * listens on 127.0.0.1 and every process started here is stopped at the end, also on failure.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { freePort, type GatewayProcess } from '../testing/gateway-process';
import {
  chatRequests,
  checkWiring,
  EMBEDDING_INPUTS,
  EMBEDDING_MODEL,
  EMBEDDING_UPSTREAM_MODEL,
  embeddingRequest,
  responsesRequest,
  gatewayEnvironment,
  messages,
  MODEL,
  startBenchGateway,
  UPSTREAM_KEY,
  UPSTREAM_MODEL,
  type Requests,
} from './bench-setup';
import { measureCatalogFilter } from './catalog-filter';
import { measurePromptCache } from './prompt-cache';
import { measureNetwork } from './network';
import { postgresAvailable, redisAvailable } from '../testing/upstreams/shared-services';
import { measureBatchBeside } from './batch-beside';
import type { ClosedResult, RateResult, RequestSpec, StreamsResult } from './load-protocol';
import {
  peakMemory,
  residentMegabytes,
  root,
  spawnTypeScript,
  startAnnouncingService,
  startLoadWorker,
  stopperOf,
  startPortkey,
  type LoadWorker,
  type Service,
} from './processes';
import {
  added,
  formatReport,
  TARGETS,
  type BenchResults,
  type BffResults,
  type GenerationRecords,
  type MemoryRow,
  type RepeatedRounds,
  type TargetName,
} from './report';

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    'rate-engine': { type: 'string', default: 'paced' },
    chunks: { type: 'string', default: '16' },
    'interval-ms': { type: 'string', default: '20' },
    'no-network': { type: 'boolean', default: false },
  },
});
const quick = flags.quick;
const rateEngine = ((engine: string | undefined) => {
  if (engine !== 'paced' && engine !== 'autocannon') {
    throw new Error('--rate-engine: expected paced or autocannon');
  }
  return engine;
})(flags['rate-engine']);
const streamChunks = Number(flags.chunks);
const streamIntervalMs = Number(flags['interval-ms']);

/** Seconds per scenario and target. */
const seconds = quick
  ? { warmup: 1, c1: 2, c32: 2, rate: 1.5, streamsC1: 2, streams: 1.5, bffC1: 2, bffStreams: 2 }
  : { warmup: 2, c1: 6, c32: 5, rate: 3, streamsC1: 6, streams: 3, bffC1: 5, bffStreams: 6 };
const RATES = [500, 1000, 2000];
const STREAM_CONCURRENCY = [1, 100];

function bffRequests(bffUrl: string): Requests {
  // The BFF takes only same-origin JSON posts: the Origin a workbench page would send.
  const headers = { 'content-type': 'application/json', origin: bffUrl };
  const request = { model: MODEL, messages, max_tokens: 16 };
  return {
    plain: {
      url: `${bffUrl}/api/chat`,
      headers,
      body: JSON.stringify({ profile: 'bench', request }),
    },
    stream: {
      url: `${bffUrl}/api/chat`,
      headers,
      body: JSON.stringify({ profile: 'bench', request: { ...request, stream: true } }),
    },
  };
}

type RecordCounts = { rows: number; settled: number; at: number };

function countRecords(database: Database.Database): RecordCounts {
  const row = database
    .prepare('SELECT COUNT(*) AS rows, COALESCE(SUM(settled), 0) AS settled FROM generations')
    .get() as { rows: number; settled: number };
  return { ...row, at: performance.now() };
}

const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));
const ratio = (value: number, over: number) =>
  Number.isFinite(value / over) && over !== 0 ? Math.round((value / over) * 100) / 100 : null;

/** The line of a child's error output that says what went wrong, not its stack. */
function gist(message: string): string {
  const line = /^\w*Error\b.*$/m.exec(message)?.[0] ?? message.split('\n')[0]!;
  return line.length > 240 ? `${line.slice(0, 240)}…` : line;
}

function progress(text: string): void {
  process.stderr.write(`bench: ${text}\n`);
}

/** Each target at c=1 and at c=32 (after a warm-up at 8), one target after the other. */
async function closedRounds<Name extends string>(
  load: LoadWorker,
  targets: Record<Name, RequestSpec>,
  what: string,
): Promise<{ c1: Record<Name, ClosedResult>; c32: Record<Name, ClosedResult> }> {
  const c1 = {} as Record<Name, ClosedResult>;
  const c32 = {} as Record<Name, ClosedResult>;
  for (const name of Object.keys(targets) as Name[]) {
    progress(`${what} at c=1 and c=32: ${name}`);
    const request = targets[name];
    await load.run({ kind: 'closed', request, connections: 8, seconds: seconds.warmup });
    c1[name] = await load.run({ kind: 'closed', request, connections: 1, seconds: seconds.c1 });
    c32[name] = await load.run({ kind: 'closed', request, connections: 32, seconds: seconds.c32 });
  }
  return { c1, c32 };
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadBefore = os.loadavg()[0]!;
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-bench-'));
  const services: Service[] = [];
  let gateway: GatewayProcess | null = null;
  let worker: LoadWorker | null = null;
  let database: Database.Database | null = null;
  const stopAll = stopperOf(
    folder,
    () => [worker, ...services, gateway],
    () => database?.close(),
  );

  try {
    progress('starting the mock upstream, this gateway, Portkey, the BFF and the load worker');
    const mock = await startAnnouncingService(
      'mock upstream',
      spawnTypeScript('bench/mock-upstream.ts', [
        '--chunks',
        String(streamChunks),
        '--interval-ms',
        String(streamIntervalMs),
      ]),
    );
    services.push(mock);

    const benchGateway = await startBenchGateway(folder, mock.url);
    gateway = benchGateway.gateway;
    const { key } = benchGateway;

    const portkey = await startPortkey(await freePort());
    services.push(portkey);

    const bareProxy = await startAnnouncingService(
      'bare Node proxy',
      spawnTypeScript('bench/bare-proxy.ts', ['--upstream', mock.url]),
    );
    services.push(bareProxy);

    let bff: Service | null = null;
    let bffSkipReason = '';
    try {
      bff = await startAnnouncingService(
        'BFF',
        spawnTypeScript('bench/bff-server.ts', [], {
          ...process.env,
          BENCH_GATEWAY_URL: gateway.baseUrl,
          BENCH_GATEWAY_KEY: key,
        }),
      );
      services.push(bff);
    } catch (error) {
      bffSkipReason = `the BFF did not start: ${gist((error as Error).message)}`;
    }
    worker = await startLoadWorker();
    database = new Database(gateway.dbPath, { readonly: true, fileMustExist: true });

    const requests: Record<TargetName, Requests> = {
      mock: chatRequests(`${mock.url}/v1/chat/completions`, {}, UPSTREAM_MODEL),
      gateway: chatRequests(
        `${gateway.baseUrl}/v1/chat/completions`,
        { authorization: `Bearer ${key}` },
        MODEL,
      ),
      portkey: chatRequests(
        `${portkey.url}/v1/chat/completions`,
        {
          authorization: `Bearer ${UPSTREAM_KEY}`,
          'x-portkey-provider': 'openai',
          'x-portkey-custom-host': `${mock.url}/v1`,
        },
        UPSTREAM_MODEL,
      ),
    };
    for (const name of TARGETS) await checkWiring(name, requests[name]);
    const floorRequests = chatRequests(`${bareProxy.url}/v1/chat/completions`, {}, UPSTREAM_MODEL);
    await checkWiring('the bare Node proxy', floorRequests);
    if (bff) {
      try {
        await checkWiring('the BFF', bffRequests(bff.url));
      } catch (error) {
        bffSkipReason = gist((error as Error).message);
        await bff.stop();
        bff = null;
      }
    }

    const pids: Record<TargetName, number> = {
      mock: mock.pid,
      gateway: gateway.pid,
      portkey: portkey.pid,
    };
    const memory = Object.fromEntries(
      TARGETS.map((name) => [
        name,
        { idleMb: residentMegabytes(pids[name]), saturationMb: null, streamsMb: null, endMb: null },
      ]),
    ) as Record<TargetName, MemoryRow>;
    const bffIdleMb = bff ? residentMegabytes(bff.pid) : null;
    const load = worker;

    for (const name of TARGETS) {
      progress(`warming up ${name}`);
      await load.run({
        kind: 'closed',
        request: requests[name].plain,
        connections: 8,
        seconds: seconds.warmup,
      });
      await load.run({
        kind: 'streams',
        request: requests[name].stream,
        concurrency: 4,
        seconds: 1,
        staggerMs: streamIntervalMs,
      });
    }

    const latencyC1 = {} as Record<TargetName, ClosedResult>;
    for (const name of TARGETS) {
      progress(`latency at c=1: ${name}`);
      latencyC1[name] = await load.run({
        kind: 'closed',
        request: requests[name].plain,
        connections: 1,
        seconds: seconds.c1,
      });
    }

    // Not a target: the floor any Node proxy sets on this machine (bench/bare-proxy.ts).
    progress('latency at c=1: a bare Node proxy (the floor)');
    await load.run({
      kind: 'closed',
      request: floorRequests.plain,
      connections: 8,
      seconds: seconds.warmup,
    });
    const floorC1 = await load.run<ClosedResult>({
      kind: 'closed',
      request: floorRequests.plain,
      connections: 1,
      seconds: seconds.c1,
    });

    const throughputC32 = {} as Record<TargetName, ClosedResult>;
    let generations: GenerationRecords | null = null;
    for (const name of TARGETS) {
      progress(`throughput at c=32: ${name}`);
      const before = name === 'gateway' ? countRecords(database) : null;
      const { value, peakMb } = await peakMemory({ [name]: pids[name] }, () =>
        load.run<ClosedResult>({
          kind: 'closed',
          request: requests[name].plain,
          connections: 32,
          seconds: seconds.c32,
        }),
      );
      throughputC32[name] = value;
      memory[name].saturationMb = peakMb[name] ?? null;
      if (before) {
        // Answers cut at the end of the window may still be writing their record.
        await pause(300);
        const after = countRecords(database);
        const settleIntervalMs = Number(gatewayEnvironment.GATEWAY_SETTLE_INTERVAL_MS);
        await pause(settleIntervalMs * 1.5);
        const settled = countRecords(database);
        generations = {
          writtenPerSecond: Math.round((after.rows - before.rows) / value.seconds),
          perAnswer: Math.round(((after.rows - before.rows) / Math.max(1, value.ok)) * 1000) / 1000,
          settledPerSecond: Math.round(
            (after.settled - before.settled) / ((after.at - before.at) / 1000),
          ),
          pendingAfter: settled.rows - settled.settled,
          settleIntervalMs,
        };
      }
    }

    // Embeddings beside chat: the mock directly and through the gateway (Portkey is left out:
    // the comparison is the gateway's own cost per embeddings request).
    const embeddingTargets = {
      mock: embeddingRequest(`${mock.url}/v1/embeddings`, {}, EMBEDDING_UPSTREAM_MODEL),
      gateway: embeddingRequest(
        `${gateway.baseUrl}/v1/embeddings`,
        { authorization: `Bearer ${key}` },
        EMBEDDING_MODEL,
      ),
    };
    const embeddings: NonNullable<BenchResults['embeddings']> = {
      inputs: EMBEDDING_INPUTS,
      ...(await closedRounds(load, embeddingTargets, 'embeddings')),
    };

    // The Responses form beside chat completions, both through the gateway to the same mock
    // (the Responses request is translated to chat completions on the way): the form's own cost.
    const formTargets = {
      chat: chatRequests(
        `${gateway.baseUrl}/v1/chat/completions`,
        { authorization: `Bearer ${key}` },
        MODEL,
      ).plain,
      responses: responsesRequest(`${gateway.baseUrl}/v1/responses`, {
        authorization: `Bearer ${key}`,
      }),
    };
    const responses: NonNullable<BenchResults['responses']> = await closedRounds(
      load,
      formTargets,
      'form through the gateway',
    );

    const rates: BenchResults['rates'] = [];
    for (const rate of RATES) {
      const byTarget = {} as Record<TargetName, RateResult>;
      for (const name of TARGETS) {
        progress(`p99 at ${rate} req/s: ${name}`);
        byTarget[name] = await load.run({
          kind: 'rate',
          engine: rateEngine,
          request: requests[name].plain,
          rate,
          seconds: seconds.rate,
        });
      }
      rates.push({ rate, results: byTarget });
    }

    const streams: BenchResults['streams'] = [];
    let floorStreamsC1: BenchResults['floorStreamsC1'] | null = null;
    for (const concurrency of STREAM_CONCURRENCY) {
      const byTarget = {} as Record<TargetName, StreamsResult>;
      for (const name of TARGETS) {
        progress(`streams at c=${concurrency}: ${name}`);
        const { value, peakMb } = await peakMemory({ [name]: pids[name] }, () =>
          load.run<StreamsResult>({
            kind: 'streams',
            request: requests[name].stream,
            concurrency,
            seconds: concurrency === 1 ? seconds.streamsC1 : seconds.streams,
            staggerMs: streamIntervalMs,
          }),
        );
        byTarget[name] = value;
        if (concurrency === 100) memory[name].streamsMb = peakMb[name] ?? null;
      }
      const addedTtft = (result: StreamsResult) => ({
        p50: Math.round((result.ttft.p50 - byTarget.mock.ttft.p50) * 1000) / 1000,
        p99: Math.round((result.ttft.p99 - byTarget.mock.ttft.p99) * 1000) / 1000,
      });
      streams.push({
        concurrency,
        results: byTarget,
        addedTtft: {
          gateway: addedTtft(byTarget.gateway),
          portkey: addedTtft(byTarget.portkey),
        },
      });
      if (concurrency === 1) {
        // Not a target: what a proxy that only passes the parts on adds to the first token.
        progress('streams at c=1: a bare Node proxy (the floor)');
        const result = await load.run<StreamsResult>({
          kind: 'streams',
          request: floorRequests.stream,
          concurrency,
          seconds: seconds.streamsC1,
          staggerMs: streamIntervalMs,
        });
        floorStreamsC1 = { result, addedTtft: addedTtft(result) };
      }
    }
    await bareProxy.stop();

    let bffResults: BffResults = { skipped: true, reason: bffSkipReason };
    if (bff) {
      progress('the workbench BFF in front of the gateway');
      const through = bffRequests(bff.url);
      await load.run({
        kind: 'closed',
        request: through.plain,
        connections: 8,
        seconds: seconds.warmup,
      });
      const { value, peakMb } = await peakMemory({ bff: bff.pid }, async () => ({
        latency: await load.run<ClosedResult>({
          kind: 'closed',
          request: through.plain,
          connections: 1,
          seconds: seconds.bffC1,
        }),
        stream: await load.run<StreamsResult>({
          kind: 'streams',
          request: through.stream,
          concurrency: 1,
          seconds: seconds.bffStreams,
          staggerMs: streamIntervalMs,
        }),
      }));
      const gatewayStreamC1 = streams.find(({ concurrency }) => concurrency === 1)!.results.gateway;
      bffResults = {
        skipped: false,
        latency: value.latency,
        stream: value.stream,
        added: added(value.latency.latency, latencyC1.gateway.latency),
        addedTtft: {
          p50: Math.round((value.stream.ttft.p50 - gatewayStreamC1.ttft.p50) * 1000) / 1000,
          p99: Math.round((value.stream.ttft.p99 - gatewayStreamC1.ttft.p99) * 1000) / 1000,
        },
        memory: {
          idleMb: bffIdleMb,
          peakMb: peakMb.bff ?? null,
          endMb: residentMegabytes(bff.pid),
        },
      };
    }

    // One tenant floods the gateway with large bodies (parsed, converted and counted before
    // the model's context limit refuses them) while another tenant's small requests are timed.
    progress('small requests while another key floods the gateway with large bodies');
    const { key: floodKey } = await gateway.createKey([
      '--kind',
      'account',
      '--limit-usd',
      '1000',
      '--name',
      'flood',
    ]);
    const floodBodyBytes = 2 * 1024 * 1024;
    const floodRequest = {
      url: `${gateway.baseUrl}/v1/chat/completions`,
      headers: { authorization: `Bearer ${floodKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: MODEL,
        messages: [{ role: 'user', content: 'lorem ipsum '.repeat(floodBodyBytes / 12) }],
        max_tokens: 16,
      }),
    };
    const floodWorker = await startLoadWorker();
    let noisyNeighbour: BenchResults['noisyNeighbour'];
    try {
      const floodConnections = 8;
      const [flood, duringFlood] = await Promise.all([
        floodWorker.run<ClosedResult>({
          kind: 'closed',
          request: floodRequest,
          connections: floodConnections,
          seconds: seconds.c1 + 1,
        }),
        pause(500).then(() =>
          load.run<ClosedResult>({
            kind: 'closed',
            request: requests.gateway.plain,
            connections: 1,
            seconds: seconds.c1,
          }),
        ),
      ]);
      noisyNeighbour = {
        bodyBytes: floodRequest.body.length,
        floodConnections,
        alone: latencyC1.gateway.latency,
        duringFlood: duringFlood.latency,
        flood: {
          perSecond: flood.perSecond + flood.failed / flood.seconds,
          statuses: flood.statuses,
        },
      };
    } finally {
      await floodWorker.stop();
    }

    await pause(1000);
    for (const name of TARGETS) memory[name].endMb = residentMegabytes(pids[name]);

    // "Flat after repeated rounds": the same c=32 load again and again, memory read after each.
    const repeatedRounds: RepeatedRounds = {
      rounds: quick ? 2 : 4,
      secondsEach: seconds.c32,
      requestsPerSecond: [],
      afterRoundMb: [],
      peakMb: [],
    };
    for (let round = 1; round <= repeatedRounds.rounds; round += 1) {
      progress(`gateway memory, round ${round} of ${repeatedRounds.rounds} at c=32`);
      const { value, peakMb } = await peakMemory({ gateway: pids.gateway }, () =>
        load.run<ClosedResult>({
          kind: 'closed',
          request: requests.gateway.plain,
          connections: 32,
          seconds: seconds.c32,
        }),
      );
      await pause(1000);
      repeatedRounds.requestsPerSecond.push(Math.round(value.perSecond));
      repeatedRounds.peakMb.push(peakMb.gateway ?? NaN);
      repeatedRounds.afterRoundMb.push(residentMegabytes(pids.gateway) ?? NaN);
    }

    // Its own gateway (in-process) and upstream: a session's cache hits, not the load's.
    console.log('Prompt cache: replaying the 30-turn Claude Code session…');
    const promptCache = await measurePromptCache();
    // Its own gateway process: interactive latency alone, then beside a running batch.
    console.log('Batches: interactive latency alone and beside a running batch…');
    const batchBeside = await measureBatchBeside();

    // Needs PostgreSQL and Redis (GATEWAY_TEST_DATABASE_URL, GATEWAY_TEST_REDIS_URL); skipped,
    // saying so, without them. One round (about a minute and a half): bench:network runs three.
    const network =
      !flags['no-network'] &&
      (await postgresAvailable('the networked scenario')) &&
      (await redisAvailable('the networked scenario'))
        ? await measureNetwork({ quick, rounds: 1, mockUrl: mock.url, load })
        : undefined;

    const addedC1 = {
      gateway: added(latencyC1.gateway.latency, latencyC1.mock.latency),
      portkey: added(latencyC1.portkey.latency, latencyC1.mock.latency),
    };
    const streamsC1 = streams.find(({ concurrency }) => concurrency === 1)!;
    const results: BenchResults = {
      date: new Date(started).toISOString(),
      command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
      quick,
      machine: {
        cpus: os.cpus().length,
        model: os.cpus()[0]?.model ?? 'unknown',
        node: process.version,
        loadAverage: { before: loadBefore, after: os.loadavg()[0]! },
      },
      setup: {
        completionTokens: 16,
        streamChunks,
        streamIntervalMs,
        rateEngine,
        seconds,
        gatewayEnvironment,
      },
      latencyC1,
      addedC1,
      floorC1: { result: floorC1, added: added(floorC1.latency, latencyC1.mock.latency) },
      floorStreamsC1: floorStreamsC1!,
      throughputC32,
      rates,
      streams,
      bff: bffResults,
      noisyNeighbour,
      catalogFilter: measureCatalogFilter(),
      promptCache,
      network,
      batchBeside,
      memory,
      repeatedRounds,
      generations: generations!,
      embeddings,
      responses,
      ratios: {
        throughputVsPortkey: ratio(
          throughputC32.gateway.perSecond,
          throughputC32.portkey.perSecond,
        ),
        throughputVsMock: ratio(throughputC32.gateway.perSecond, throughputC32.mock.perSecond),
        addedP50VsPortkey: ratio(addedC1.gateway.p50, addedC1.portkey.p50),
        addedP99VsPortkey: ratio(addedC1.gateway.p99, addedC1.portkey.p99),
        addedTtftVsPortkey: ratio(streamsC1.addedTtft.gateway.p50, streamsC1.addedTtft.portkey.p50),
        rssVsPortkey: ratio(memory.gateway.saturationMb ?? NaN, memory.portkey.saturationMb ?? NaN),
      },
    };

    console.log(formatReport(results));
    const resultsFolder = path.join(root, 'bench', 'results');
    fs.mkdirSync(resultsFolder, { recursive: true });
    const text = `${JSON.stringify(results, null, 2)}\n`;
    const file = path.join(resultsFolder, `${results.date.replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(file, text);
    fs.writeFileSync(path.join(resultsFolder, 'latest.json'), text);
    console.log(
      `\nWritten: ${path.relative(root, file)} (and bench/results/latest.json), in ${Math.round((Date.now() - started) / 1000)} s.`,
    );
  } finally {
    await stopAll();
  }
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${(error as Error).message}`);
  process.exit(1);
});
