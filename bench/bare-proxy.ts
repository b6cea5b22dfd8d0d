/**
 * The floor under the added-latency goal: a bare Node proxy in a process of its own, with the
 * same parts this gateway's request path is built on (`node:http` in front, an undici pool to the
 * upstream) and nothing else: no key, no validation, no conversion, no record. It reads the
 * body, sends it on to the mock, and sends the mock's answer back: whole, or for a stream each
 * part as it arrives (the floor under the added time to first token). What it adds at c=1 is
 * what any Node proxy adds on this machine; what the gateway adds beyond it is the gateway's own
 * work.
 *
 * Usage: tsx bench/bare-proxy.ts --upstream http://127.0.0.1:N
 * Prints `{"port": N}` on standard output once it listens on 127.0.0.1.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const { values } = parseArgs({ options: { upstream: { type: 'string' } } });
if (!values.upstream) throw new Error('--upstream: give the mock upstream’s URL');
const pool = new Pool(values.upstream, { connections: 128 });

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    pool
      .request({
        path: request.url ?? '/',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat(chunks),
      })
      .then(async (answer) => {
        const type = String(answer.headers['content-type'] ?? '');
        if (type.startsWith('text/event-stream')) {
          // Headers go out with the first part (Node holds them until the first write).
          response.writeHead(answer.statusCode, { 'content-type': type });
          for await (const part of answer.body) response.write(part);
          response.end();
          return;
        }
        const body = Buffer.from(await answer.body.arrayBuffer());
        response.writeHead(answer.statusCode, {
          'content-type': 'application/json',
          'content-length': body.length,
        });
        response.end(body);
      })
      .catch((error: unknown) => {
        response.writeHead(502, { 'content-type': 'text/plain' });
        response.end(String(error));
      });
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
