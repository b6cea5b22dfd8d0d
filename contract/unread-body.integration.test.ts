/**
 * A body the answer left unread: discarded up to a bound, at a bounded rate per owner, then the
 * connection is closed.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { OwnerRates, unreadBodyLimiter, type UnreadBodyLimits } from './unread-body';

// A rate far above what these tests send: only the rate's own test meets it.
const LIMITS: UnreadBodyLimits = { bytes: 1024 * 1024, ms: 300, bytesPerSecond: 1024 ** 3 };
const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/**
 * A server that answers every request at once, before reading its body, as the gateway refuses
 * an unknown key; what the socket of the first request read in all, once it closed.
 */
async function refusingServer({
  readFirst = false,
  limits = LIMITS,
}: { readFirst?: boolean; limits?: UnreadBodyLimits } = {}): Promise<{
  port: number;
  bytesRead: Promise<number>;
  /** What each closed connection's socket read in all, by the client's port. */
  closed: Map<number, number>;
}> {
  let reported!: (bytes: number) => void;
  const bytesRead = new Promise<number>((resolve) => (reported = resolve));
  const closed = new Map<number, number>();
  const limitUnreadBody = unreadBodyLimiter(limits);
  const server = http.createServer((request, response) => {
    limitUnreadBody(request, response);
    request.socket.once('close', () => {
      closed.set(request.socket.remotePort!, request.socket.bytesRead);
      reported(request.socket.bytesRead);
    });
    const refuse = () => {
      const body = '{"error":"unknown key"}';
      response.writeHead(401, {
        'content-type': 'application/json',
        'content-length': body.length,
      });
      response.end(body);
    };
    if (!readFirst || request.headers['content-length'] === undefined) return refuse();
    // Some of the body read, then paused, as a reader stopping at its limit does.
    request.once('data', () => {
      request.pause();
      refuse();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, bytesRead, closed };
}

/** A raw connection: what it received so far, and a way to wait for more. */
async function connect(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  let waiting: (() => void) | null = null;
  socket.on('data', (data: Buffer) => {
    received += data.toString();
    waiting?.();
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const answers = () => received.split('HTTP/1.1 ').length - 1;
  return {
    socket,
    closed,
    received: () => received,
    /** Resolves once `count` answers have arrived in all. */
    answered: (count: number) =>
      new Promise<void>((resolve) => {
        waiting = () => {
          if (answers() < count) return;
          waiting = null;
          resolve();
        };
        waiting();
      }),
  };
}

/** Writes `chunks` until the server closes the connection (or they run out). */
async function sendUntilClosed(
  connection: Awaited<ReturnType<typeof connect>>,
  chunks: Iterable<Buffer | string>,
  pauseMs = 0,
): Promise<void> {
  const { socket, closed } = connection;
  for (const chunk of chunks) {
    if (socket.destroyed) break;
    if (!socket.write(chunk)) {
      await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closed]);
    }
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

const postHead = (headers: string) =>
  `POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n${headers}\r\n`;

/** Sends a body of `bytes` on a new connection and waits for its (refusing) answer. */
async function sendRefused(port: number, bytes: number) {
  const connection = await connect(port);
  const body = Buffer.alloc(bytes, 'a');
  connection.socket.write(postHead(`Content-Length: ${body.length}\r\n`));
  void sendUntilClosed(connection, [body]);
  await connection.answered(1);
  return connection;
}

describe('a request body the answer left unread', () => {
  it('is read no further than about the bound in bytes; the client has its answer, then the connection closes', async () => {
    const { port, bytesRead } = await refusingServer();
    const declared = 1024 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const connection = await connect(port);
    connection.socket.write(postHead(`Content-Length: ${declared}\r\n`));
    await sendUntilClosed(
      connection,
      (function* () {
        for (let sent = 0; sent < declared; sent += chunk.length) yield chunk;
      })(),
    );
    await connection.closed;
    expect(connection.received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(connection.received()).toContain('{"error":"unknown key"}');
    // Node alone reads all of a 1 GiB body; here the bound (1 MiB) and what arrives while it is
    // checked.
    expect(await bytesRead).toBeLessThan(256 * 1024 * 1024);
  });

  it('is cut after the bound in time when it trickles in without an end', async () => {
    const { port, bytesRead } = await refusingServer();
    const connection = await connect(port);
    connection.socket.write(postHead('Transfer-Encoding: chunked\r\n'));
    await sendUntilClosed(
      connection,
      (function* () {
        // Endless: without the bound, read until Node's request timeout.
        for (;;) yield '1\r\na\r\n';
      })(),
      20,
    );
    await connection.closed;
    expect(connection.received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(await bytesRead).toBeLessThan(64 * 1024);
  });

  it.each([
    ['left unread', false],
    // As Express's body parser leaves a body it stopped reading at its limit.
    ['read partway, then paused', true],
  ])(
    'is read whole when within the bound (%s), for a client that sends it all before it reads',
    async (_label, readFirst) => {
      const { port } = await refusingServer({ readFirst });
      const connection = await connect(port);
      const body = Buffer.alloc(512 * 1024, 'a');
      // As Python's http.client does: the whole request first, the answer afterwards.
      connection.socket.write(postHead(`Content-Length: ${body.length}\r\n`));
      await sendUntilClosed(connection, [body]);
      await connection.answered(1);
      expect(connection.received()).toMatch(/^HTTP\/1\.1 401 /);
      // And the connection carries the next request.
      connection.socket.write('GET /v1/models HTTP/1.1\r\nHost: gateway\r\n\r\n');
      await connection.answered(2);
      expect(connection.socket.destroyed).toBe(false);
      connection.socket.destroy();
    },
  );

  it('keeps the connection after a small body or none, past the bound in time', async () => {
    const { port } = await refusingServer();
    const connection = await connect(port);
    const body = 'x'.repeat(4096);
    connection.socket.write(`${postHead(`Content-Length: ${body.length}\r\n`)}${body}`);
    await connection.answered(1);
    connection.socket.write('GET /v1/models HTTP/1.1\r\nHost: gateway\r\n\r\n');
    await connection.answered(2);
    await new Promise((resolve) => setTimeout(resolve, LIMITS.ms + 200));
    connection.socket.write('GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n');
    await connection.answered(3);
    expect(connection.received()).not.toMatch(/connection: close/i);
    expect(connection.socket.destroyed).toBe(false);
    connection.socket.destroy();
  });

  it('lets a client with one pooled connection send its next request after a large refused body', async () => {
    const { port } = await refusingServer();
    const client = new Agent({ connections: 1 });
    try {
      const url = `http://127.0.0.1:${port}/v1/chat/completions`;
      const refused = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.alloc(512 * 1024, 'a'),
        dispatcher: client,
      } as RequestInit);
      expect(refused.status).toBe(401);
      expect(await refused.text()).toBe('{"error":"unknown key"}');
      const next = await fetch(url, { dispatcher: client } as RequestInit);
      expect(next.status).toBe(401);
      await next.text();
    } finally {
      await client.close();
    }
  });

  it("is read at its owner's rate: past it, the owner's next refused body waits unread", async () => {
    // One owner (both connections come from 127.0.0.1) with a quarter of a MiB a second; the
    // first body takes more than that, so the second is paused from its answer on, until the
    // time bound closes it.
    const { port, closed } = await refusingServer({
      limits: { bytes: 64 * 1024 * 1024, ms: 800, bytesPerSecond: 256 * 1024 },
    });
    const first = await sendRefused(port, 4 * 1024 * 1024);
    // Long enough for the first body's reads to be counted (every 10 ms).
    await new Promise((resolve) => setTimeout(resolve, 100));

    const second = await sendRefused(port, 8 * 1024 * 1024);
    const secondPort = second.socket.localPort!;
    expect(second.received()).toMatch(/^HTTP\/1\.1 401 /);
    await second.closed;
    while (!closed.has(secondPort)) await new Promise((resolve) => setTimeout(resolve, 10));
    // Without the rate the second body is read whole (8 MiB) well within the 800 ms, and its
    // connection stays open for the next request; with it, no more is read than came in with
    // its head before the answer, and the time bound closes it.
    expect(closed.get(secondPort)).toBeLessThan(1024 * 1024);
    first.socket.destroy();
  });

  it("reads an owner's paused body again once its rate allows, and the connection carries on", async () => {
    // A MiB a second: the first body overdraws it by half a MiB, so the second waits, unread,
    // for about half a second, then is read to its end and the connection takes the next request.
    const { port } = await refusingServer({
      limits: { bytes: 64 * 1024 * 1024, ms: 5_000, bytesPerSecond: 1024 * 1024 },
    });
    const first = await sendRefused(port, 1.5 * 1024 * 1024);
    await new Promise((resolve) => setTimeout(resolve, 100));

    const second = await sendRefused(port, 256 * 1024);
    second.socket.write('GET /v1/models HTTP/1.1\r\nHost: gateway\r\n\r\n');
    await second.answered(2);
    expect(second.received()).toMatch(/^HTTP\/1\.1 401 [\s\S]*HTTP\/1\.1 401 /);
    expect(second.socket.destroyed).toBe(false);
    second.socket.destroy();
    first.socket.destroy();
  });
});

describe("an owner's allowance for reading refused bodies", () => {
  it('carries what it overdrew: reading more at once does not buy more over time', () => {
    const rates = new OwnerRates(1000);
    expect(rates.charge('key a', 400, 0)).toBe(true);
    // Many connections each read their buffer before the next check: 3,000 over the rate.
    expect(rates.charge('key a', 3600, 10)).toBe(false);
    // A fixed window would forgive that after a second; here it takes three more.
    expect(rates.charge('key a', 0, 1010)).toBe(false);
    expect(rates.charge('key a', 0, 3000)).toBe(false);
    expect(rates.charge('key a', 0, 3100)).toBe(true);
    // Another owner has its own allowance.
    expect(rates.charge('key b', 900, 10)).toBe(true);
  });

  it('forgets owners whose allowance has refilled, so addresses that come and go are not kept', () => {
    const rates = new OwnerRates(1000);
    for (let owner = 0; owner < 1500; owner++) rates.charge(`address ${owner}`, 500, 0);
    expect(rates.size).toBeGreaterThan(1000);
    rates.charge('address new', 500, 2000);
    expect(rates.size).toBe(1);
  });
});
