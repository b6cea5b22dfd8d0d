/**
 * A fake upstream provider on loopback for the gateway's tests: it records every request it gets
 * (method, path, headers, body) and answers each with the next scripted reply: a JSON body, a
 * recorded stream (`.chunks.txt` from `gateway/vendors/<vendor>/__fixtures__`) sent event by event, or a
 * fault (reset, stall, malformed answer, wrong content type). It sees a client's disconnect.
 * Beside it, a server that never accepts a connection, for connect timeouts.
 */
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import { Worker } from 'node:worker_threads';

export type FakeReply = {
  status?: number;
  headers?: Record<string, string>;
  /** A JSON body (object) or raw text. */
  body?: unknown;
  /** Server-sent events, each sent whole (with its trailing blank line) as one write. */
  events?: string[];
  /** Milliseconds between events, and before the first one. */
  eventIntervalMs?: number;
  /** `reset_before`: close the socket without answering; `reset_mid`: after `cutAfter` events;
   * `stall_headers`: never answer; `stall_mid`: stop sending after `cutAfter` events. */
  fault?: 'reset_before' | 'reset_mid' | 'stall_headers' | 'stall_mid';
  cutAfter?: number;
  /** The reply waits for this before anything is sent, so a test decides when it starts. */
  holdUntil?: Promise<unknown>;
};

export type RecordedRequest = {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** `performance.now()` when the request had arrived whole. */
  receivedAt: number;
};

export type FakeUpstream = {
  url: string;
  requests: RecordedRequest[];
  /** Requests whose client went away before the reply ended. */
  disconnects: number;
  /** Queues replies for the next requests, in order; after the queue, `fallback` answers. */
  reply(...replies: FakeReply[]): void;
  fallback: FakeReply;
  /**
   * A rule of the vendor's that this upstream enforces: the vendor's refusal for a request that
   * breaks it (answered instead of the next reply, which stays queued), else undefined.
   */
  refuse?: (request: RecordedRequest) => FakeReply | undefined;
  close(): Promise<void>;
};

/** The events of a recorded `.chunks.txt` stream, each with its terminating blank line. */
export function eventsOf(fixturePath: string): string[] {
  return fs
    .readFileSync(fixturePath, 'utf8')
    .replace(/\r\n/g, '\n')
    .split(/\n\n+/)
    .filter((block) => block.trim() !== '')
    .map((block) => `${block}\n\n`);
}

export async function startFakeUpstream(): Promise<FakeUpstream> {
  const queue: FakeReply[] = [];
  const sockets = new Set<Socket>();
  const state: FakeUpstream = {
    url: '',
    requests: [],
    disconnects: 0,
    reply: (...replies) => queue.push(...replies),
    fallback: { status: 500, body: { error: { message: 'no reply scripted' } } },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };

  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const recorded: RecordedRequest = {
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      receivedAt: performance.now(),
    };
    state.requests.push(recorded);
    const reply = state.refuse?.(recorded) ?? queue.shift() ?? state.fallback;
    let finished = false;
    response.on('close', () => {
      if (!finished) state.disconnects += 1;
    });
    if (reply.holdUntil) await reply.holdUntil;
    if (response.destroyed) return;
    if (reply.fault === 'reset_before') {
      request.socket.destroy();
      return;
    }
    if (reply.fault === 'stall_headers') return;

    if (reply.events) {
      response.writeHead(reply.status ?? 200, {
        'content-type': 'text/event-stream',
        ...reply.headers,
      });
      response.flushHeaders();
      let written: Promise<unknown> = Promise.resolve();
      for (const [index, event] of reply.events.entries()) {
        if (reply.cutAfter !== undefined && index >= reply.cutAfter) {
          if (reply.fault === 'reset_mid') {
            // Node sends writes on the next tick: the reset comes after the events, not instead.
            await written;
            request.socket.destroy();
          }
          return; // stall_mid: the stream stays open and silent
        }
        if (reply.eventIntervalMs) await sleep(reply.eventIntervalMs);
        if (response.destroyed) return;
        written = new Promise((resolve) => response.write(event, resolve));
      }
      finished = true;
      response.end();
      return;
    }
    const body = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
    response.writeHead(reply.status ?? 200, {
      'content-type': 'application/json',
      ...reply.headers,
    });
    finished = true;
    response.end(body);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

/**
 * The listening socket of an upstream that does not accept connections: a server in a worker
 * thread whose event loop is blocked, so it never accepts, with its accept queue (backlog 1)
 * filled here. The kernel then drops each new connection's SYN, and a connect to `url` hangs
 * until the caller's connect timeout gives up, as with an overloaded host.
 */
export async function startUnacceptingServer(): Promise<{ url: string; close(): Promise<void> }> {
  const wake = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const server = require('node:net').createServer();
     server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
       parentPort.postMessage(server.address().port);
       Atomics.wait(workerData, 0, 0);
       server.close();
     });`,
    { eval: true, workerData: wake },
  );
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  // Connections the kernel completes wait in the queue; once one hangs, the queue is full.
  const fillers: Socket[] = [];
  for (let filled = false; !filled && fillers.length < 16;) {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    fillers.push(socket);
    filled = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(true), 200);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
  }
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of fillers) socket.destroy();
      Atomics.store(wake, 0, 1);
      Atomics.notify(wake, 0);
      await worker.terminate();
    },
  };
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));
