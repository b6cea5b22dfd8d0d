import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startEventStream, writeEvent } from './respond';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Each read of the raw answer, in order, until the server ends it. */
async function readsOf(handler: http.RequestListener): Promise<string[]> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
  const reads: string[] = [];
  // The stream answers keep-alive, so the answer ends at its last chunk, not at a close.
  await new Promise<void>((resolve) =>
    socket.on('data', (data) => {
      reads.push(data.toString('utf8'));
      if (reads.join('').endsWith('\r\n0\r\n\r\n')) resolve();
    }),
  );
  socket.destroy();
  return reads;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a streamed answer', () => {
  it('sends its headers with the events written in its first turn, and later events as they come', async () => {
    let heldInFirstTurn = -1;
    let heldAfterIt = -1;
    const reads = await readsOf(async (_request, response) => {
      startEventStream(response);
      await writeEvent(response, 'opening');
      await Promise.resolve();
      await writeEvent(response, 'first token');
      // Nothing has gone to the kernel yet: it is held, and leaves in one write when the turn ends.
      heldInFirstTurn = response.socket!.writableLength;
      await sleep(50);
      heldAfterIt = response.socket!.writableLength;
      await writeEvent(response, 'second token');
      response.end();
    });
    // Held in the socket until the turn ends: the events at least (Node 24 counts the HTTP
    // framing apart from the socket's own buffer), and nothing once the turn is over.
    const events = Buffer.byteLength('data: opening\n\ndata: first token\n\n');
    expect(heldInFirstTurn).toBeGreaterThanOrEqual(events);
    expect(heldInFirstTurn).toBeLessThanOrEqual(Buffer.byteLength(reads[0]!));
    expect(heldAfterIt).toBe(0);
    expect(reads[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(reads[0]).toContain('content-type: text/event-stream; charset=utf-8');
    expect(reads[0]).toContain('data: opening\n\n');
    expect(reads[0]).toContain('data: first token\n\n');
    expect(reads[0]).not.toContain('second token');
    expect(reads.slice(1).join('')).toContain('data: second token\n\n');
  });
});
