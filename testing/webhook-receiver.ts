/**
 * A webhook receiver on loopback for tests of every box: it records every request, and answers
 * each with what the test sets (a status, a redirect, or no answer at all until it closes).
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Received = {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
};

/** What to answer a request with: a status (and headers), or `hang` to answer nothing. */
export type Answer = { status: number; headers?: Record<string, string> } | 'hang';

export type Receiver = {
  url: string;
  received: Received[];
  /** Answers to give, in order; once used up, the receiver's usual status. */
  answers: Answer[];
  close(): Promise<void>;
};

/** `status`: the usual answer (200 unless said). */
export async function startReceiver({ status = 200 } = {}): Promise<Receiver> {
  const received: Received[] = [];
  const answers: Answer[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const answer = answers.shift() ?? { status };
      if (answer === 'hang') {
        hanging.add(response);
        return;
      }
      response.writeHead(answer.status, answer.headers).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answers,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The Standard Webhooks signature a received request should carry, written out here rather than
 * taken from the gateway: HMAC-SHA256 of `id.timestamp.body` under the `whsec_` secret.
 */
export function signatureOf(secret: string, request: Received): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signed = `${String(request.headers['webhook-id'])}.${String(request.headers['webhook-timestamp'])}.${request.body}`;
  return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
}
