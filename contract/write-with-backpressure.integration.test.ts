/**
 * Writing to a client that reads slowly, over real HTTP on loopback: the write waits for the
 * client, and a client that takes nothing for the send timeout is dropped.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeWithBackpressure } from './write-with-backpressure';

/** More than the sockets between server and client hold, so the write has to wait. */
const BODY = 'x'.repeat(24 * 1024 * 1024);
const SEND_TIMEOUT_MS = 400;

async function exchange(read: (reply: IncomingMessage) => Promise<void>) {
  let written: Promise<boolean> = Promise.resolve(false);
  let answer: ServerResponse | undefined;
  const server = http.createServer((_request, response) => {
    answer = response;
    response.writeHead(200, { 'content-type': 'text/plain' });
    written = writeWithBackpressure(response, BODY, SEND_TIMEOUT_MS);
    void written.then((ok) => ok && response.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const reply = await new Promise<IncomingMessage>((resolve, reject) =>
      http.get({ host: '127.0.0.1', port }, resolve).on('error', reject),
    );
    reply.on('error', () => undefined);
    await read(reply);
    return { ok: await written, destroyed: answer!.destroyed };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe('writeWithBackpressure', () => {
  it('drops a client that takes nothing for the send timeout', async () => {
    const result = await exchange(async (reply) => {
      reply.pause();
      await sleep(SEND_TIMEOUT_MS * 3);
    });
    expect(result).toEqual({ ok: false, destroyed: true });
  });
});
