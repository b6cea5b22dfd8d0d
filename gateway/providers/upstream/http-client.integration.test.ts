import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamError } from '../upstream-error';
import { createUpstreamAgent, postJsonWhole } from './http-client';
import { defaultTimeouts } from './provider-config';

const servers: http.Server[] = [];
const agents: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A loopback server answering with `handler`; its URL, and the requests' bodies it received. */
async function upstream(handler: http.RequestListener) {
  const bodies: string[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      bodies.push(body);
      handler(request, response);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/answer`, bodies };
}

function agent(firstByteMs = 2_000) {
  const created = createUpstreamAgent({
    ...defaultTimeouts,
    connectMs: 1_000,
    firstByteMs,
    idleMs: 2_000,
  });
  agents.push(created);
  return created;
}

const limits = { ok: 1_000, error: 100 };
const post = (url: string, signal = new AbortController().signal, timeoutMs?: number) =>
  postJsonWhole(
    {
      agent: agent(timeoutMs),
      url,
      headers: { 'x-test': 'yes' },
      body: { ask: 'hi' },
      signal,
      providerId: 'fake',
    },
    (status) => (status <= 299 ? limits.ok : limits.error),
  );

describe('an answer read whole', () => {
  it('comes back with its status, headers and text, after the JSON body was sent', async () => {
    const { url, bodies } = await upstream((request, response) => {
      response.writeHead(200, {
        'content-type': 'application/json',
        'x-seen': request.headers['x-test'],
      });
      response.end('{"ok":true}');
    });
    const answer = await post(url);
    expect(answer).toMatchObject({ status: 200, text: '{"ok":true}', truncated: false });
    expect(answer.headers['x-seen']).toBe('yes');
    expect(bodies).toEqual(['{"ask":"hi"}']);
  });

  it('is cut at the limit for its status: an error body sooner than an answer', async () => {
    const { url } = await upstream((request, response) => {
      response.writeHead(request.url === '/v1/answer' ? 500 : 200);
      response.end('x'.repeat(5_000));
    });
    const error = await post(url);
    expect(error).toMatchObject({ status: 500, truncated: true });
    expect(error.text).toBe('x'.repeat(limits.error));
    const large = await post(url.replace('/v1/answer', '/v1/large'));
    expect(large).toMatchObject({ status: 200, truncated: true });
    expect(large.text).toHaveLength(limits.ok);
  });

  it('reads nothing of an answer its limit refuses from the headers', async () => {
    const { url } = await upstream((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<p>'.repeat(5_000));
    });
    const refused = await postJsonWhole(
      {
        agent: agent(),
        url,
        headers: {},
        body: {},
        signal: new AbortController().signal,
        providerId: 'fake',
      },
      (_status, headers) => (String(headers['content-type']).includes('json') ? 1_000 : 0),
    );
    expect(refused).toMatchObject({ status: 200, text: '', truncated: true });
    expect(refused.headers['content-type']).toBe('text/html');
  });

  it('cut by the provider after its headers is a cut answer', async () => {
    const { url } = await upstream((_request, response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('{"partial":');
      setTimeout(() => response.socket?.destroy(), 20);
    });
    const failure = await post(url).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as UpstreamError).failure).toBe('cut');
  });

  it('that does not start within first_byte_ms is a first-byte timeout', async () => {
    const { url } = await upstream(() => undefined);
    const failure = await post(url, undefined, 100).catch((error: unknown) => error);
    expect((failure as UpstreamError).failure).toBe('first_byte_timeout');
  });

  it('is abandoned when the signal aborts, and the provider sees the connection close', async () => {
    let closed: Promise<void> = Promise.resolve();
    const { url } = await upstream((request) => {
      closed = new Promise((resolve) => request.socket.once('close', () => resolve()));
    });
    const abort = new AbortController();
    const pending = post(url, abort.signal).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    abort.abort();
    expect(await pending).toBeInstanceOf(Error);
    await closed;

    const already = new AbortController();
    already.abort();
    expect(await post(url, already.signal).catch((error: unknown) => error)).toBeInstanceOf(Error);
  });
});
