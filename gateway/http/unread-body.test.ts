/** A refusal written before the body was read: a large rest is not read, the connection closes. */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { sendJson } from './respond';
const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server that refuses every request before reading its body; what each socket read in all. */
async function refusingServer(): Promise<{ port: number; bytesRead: Promise<number> }> {
  let reported!: (bytes: number) => void;
  const bytesRead = new Promise<number>((resolve) => (reported = resolve));
  const server = http.createServer((request, response) => {
    request.socket.once('close', () => reported(request.socket.bytesRead));
    sendJson(response, 401, { error: 'unknown key' });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, bytesRead };
}

/** Sends `head`, then body chunks from `chunks` until the server closes; what came back. */
async function send(
  port: number,
  head: string,
  chunks: () => Iterable<Buffer | string>,
  pauseMs = 0,
): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  let answer = '';
  socket.on('data', (data: Buffer) => (answer += data.toString()));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(head);
  for (const chunk of chunks()) {
    if (socket.destroyed) break;
    if (!socket.write(chunk)) {
      await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closed]);
    }
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  await closed;
  return answer;
}

describe('a request body left unread by the answer', () => {
  it('is not read when large: the client gets its answer, then the connection closes', async () => {
    const { port, bytesRead } = await refusingServer();
    const total = 20 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const answer = await send(
      port,
      `POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nContent-Length: ${total}\r\n\r\n`,
      function* () {
        for (let sent = 0; sent < total; sent += chunk.length) yield chunk;
      },
    );
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(answer).toContain('{"error":"unknown key"}');
    // Node alone reads all 20 MiB to keep the connection; it closes it instead.
    expect(await bytesRead).toBeLessThan(1024 * 1024);
  });

  it('is cut at once when it trickles in without an end', async () => {
    const { port, bytesRead } = await refusingServer();
    const answer = await send(
      port,
      'POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      function* () {
        // Endless without the bound: the connection would stay until Node's request timeout.
        for (;;) yield '1\r\na\r\n';
      },
      20,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(await bytesRead).toBeLessThan(64 * 1024);
  });

  it('says so, so a client with one pooled connection sends the next request on a new one', async () => {
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

  it('keeps the connection for the next request when a small body is still arriving', async () => {
    const { port } = await refusingServer();
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    const answers = (count: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (answer.split('HTTP/1.1 401').length - 1 >= count) {
            socket.off('data', check);
            resolve();
          }
        };
        socket.on('data', (data: Buffer) => {
          answer += data.toString();
          check();
        });
      });
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const body = 'x'.repeat(4096);
    const request = `POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    socket.write(request);
    await answers(1);
    socket.write(request);
    await answers(2);
    expect(socket.destroyed).toBe(false);
    socket.destroy();
  });
});
