/**
 * Where the gateway's resident memory goes under load: for each set of Node flags given, the
 * compiled gateway is loaded at c=32 in rounds of plain and streamed chat completions, and after
 * each round this prints its peak RSS, its RSS, and, read over the inspector, the main thread's V8
 * heap as it is and after a full collection (what is live), with the young generation's size.
 *
 *   npm run bench:memory                                   Node's defaults, four rounds
 *   npm run bench:memory -- --flags= --flags=--max-semi-space-size=16   (several flags: "--flags=--a --b")
 *   npm run bench:memory -- --rounds 6 --seconds 10
 *
 * A live heap that grows from round to round is a leak; a live heap that stays while RSS grows is
 * V8 collecting lazily (docs/performance.md, "Memory"). Writes nothing; build first (`npm run build`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { freePort } from '../testing/gateway-process';
import { chatRequests, MODEL, startBenchGateway } from './bench-setup';
import type { ClosedResult } from './load-protocol';
import {
  peakMemory,
  residentMegabytes,
  spawnTypeScript,
  startAnnouncingService,
  startLoadWorker,
  stopperOf,
  type Service,
} from './processes';

const { values } = parseArgs({
  options: {
    flags: { type: 'string', multiple: true },
    rounds: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '10' },
  },
});
const variants = values.flags ?? [''];
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be a whole number ≥ 1');
if (!(seconds > 0)) throw new Error('--seconds must be a number of seconds above 0');

const megabytes = (bytes: number) => Math.round(bytes / 1048576);

/** One expression evaluated in the gateway's main thread over the inspector, after `before`. */
async function inspect(port: number, expression: string, before: string[] = []): Promise<unknown> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{
    webSocketDebuggerUrl: string;
  }>;
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let next = 0;
  const call = (method: string, params: object = {}) =>
    new Promise<{ result?: { value?: unknown } }>((resolve) => {
      const id = ++next;
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as { id?: number; result: never };
        if (message.id === id) resolve(message.result);
      });
      socket.send(JSON.stringify({ id, method, params }));
    });
  try {
    for (const method of before) await call(method);
    const answer = await call('Runtime.evaluate', { expression, returnByValue: true });
    return answer.result?.value;
  } finally {
    socket.close();
  }
}

type Heap = { used: number; young: number; limit: number };
const heapExpression = `(() => {
  const v8 = process.getBuiltinModule('v8');
  const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  const heap = v8.getHeapStatistics();
  return { used: heap.used_heap_size, young: young ? young.space_size : 0, limit: heap.heap_size_limit };
})()`;

async function heapOf(port: number, collect: boolean): Promise<Heap> {
  return (await inspect(
    port,
    heapExpression,
    collect ? ['HeapProfiler.collectGarbage'] : [],
  )) as Heap;
}

async function measure(flags: string): Promise<void> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-memory-'));
  const services: Service[] = [];
  let gateway: Awaited<ReturnType<typeof startBenchGateway>>['gateway'] | null = null;
  let worker: Awaited<ReturnType<typeof startLoadWorker>> | null = null;
  const stopAll = stopperOf(folder, () => [worker, gateway, ...services]);
  try {
    const mock = await startAnnouncingService(
      'mock upstream',
      spawnTypeScript('bench/mock-upstream.ts', ['--chunks', '16', '--interval-ms', '1']),
    );
    services.push(mock);
    const inspectorPort = await freePort();
    const nodeArgs = [...flags.split(' ').filter(Boolean), `--inspect=127.0.0.1:${inspectorPort}`];
    const started = await startBenchGateway(folder, mock.url, nodeArgs);
    gateway = started.gateway;
    worker = await startLoadWorker();
    const requests = chatRequests(
      `${gateway.baseUrl}/v1/chat/completions`,
      { authorization: `Bearer ${started.key}` },
      MODEL,
    );
    const heap = await heapOf(inspectorPort, false);
    console.log(
      `\nflags: ${flags || "(Node's defaults)"}; heap limit ${megabytes(heap.limit)} MB; idle RSS ${residentMegabytes(gateway.pid)} MB`,
    );
    console.log('round  kind    answers/s  peak RSS  RSS  heap used  young gen  live heap');
    for (let round = 1; round <= rounds; round++) {
      for (const kind of ['plain', 'stream'] as const) {
        const { value, peakMb } = await peakMemory({ gateway: gateway.pid }, () =>
          worker!.run<ClosedResult>({
            kind: 'closed',
            request: requests[kind],
            connections: 32,
            seconds,
          }),
        );
        const before = await heapOf(inspectorPort, false);
        const rss = residentMegabytes(gateway.pid);
        const live = await heapOf(inspectorPort, true);
        console.log(
          [
            String(round).padEnd(5),
            kind.padEnd(6),
            String(Math.round(value.perSecond)).padStart(9),
            `${peakMb.gateway} MB`.padStart(8),
            `${rss} MB`.padStart(6),
            `${megabytes(before.used)} MB`.padStart(9),
            `${megabytes(before.young)} MB`.padStart(9),
            `${megabytes(live.used)} MB`.padStart(9),
          ].join('  '),
        );
      }
    }
  } finally {
    await stopAll();
  }
}

console.log(`load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`);
for (const flags of variants) await measure(flags);
