import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createStagedAgent,
  failureOf,
  HttpCallError,
  readText,
  send,
  type StagedTimeouts,
} from './http-client';

const servers: http.Server[] = [];
const agents: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/answer`;
}

function agent(timeouts: Partial<StagedTimeouts> = {}) {
  const created = createStagedAgent({
    connectMs: 1_000,
    firstByteMs: 2_000,
    idleMs: 2_000,
    ...timeouts,
  });
  agents.push(created);
  return created;
}

/** The error a promise fails with; fails the test when it does not. */
async function failureFrom(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('the shared HTTP client', () => {
  it('sends the request, says when the connection carries it, and gives the answer', async () => {
    let seen = '';
    const url = await serve((request, response) => {
      request.on('data', (chunk: Buffer) => (seen += chunk.toString('utf8')));
      request.on('end', () => {
        response.writeHead(201, { 'content-type': 'application/json', 'x-seen': request.method });
        response.end('{"ok":true}');
      });
    });
    const events: string[] = [];
    const answer = await send({
      agent: agent(),
      url,
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: '{"ask":"hi"}',
      onConnected: () => events.push('connected'),
    });
    events.push('answered');
    expect(answer.status).toBe(201);
    expect(answer.headers['x-seen']).toBe('PATCH');
    expect(await readText(answer.body, 1_000)).toEqual({ text: '{"ok":true}', truncated: false });
    expect(seen).toBe('{"ask":"hi"}');
    expect(events).toEqual(['connected', 'answered']);
  });

  it('keeps a call’s own first-byte timeout over the agent’s', async () => {
    const url = await serve(() => undefined);
    // The agent's would outlast the test.
    const slowAgent = agent({ firstByteMs: 60_000 });
    const error = await failureFrom(
      send({ agent: slowAgent, url, method: 'GET', headers: {}, firstByteMs: 200 }),
    );
    expect(error).toBeInstanceOf(HttpCallError);
    expect((error as HttpCallError).phase).toBe('before');
    expect(failureOf((error as HttpCallError).cause, 'before')).toBe('first_byte_timeout');
  });

  it('ends a body that falls silent at the idle timeout', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n');
    });
    const answer = await send({ agent: agent({ idleMs: 200 }), url, method: 'GET', headers: {} });
    const error = await failureFrom(readText(answer.body, 1_000));
    expect(failureOf(error, 'during')).toBe('idle_timeout');
  });

  it('fails with the abort’s reason when the caller leaves before the headers', async () => {
    const url = await serve(() => undefined);
    const controller = new AbortController();
    const call = send({
      agent: agent(),
      url,
      method: 'GET',
      headers: {},
      signal: controller.signal,
    });
    const reason = new Error('the client left');
    controller.abort(reason);
    const error = await failureFrom(call);
    expect((error as HttpCallError).cause).toBe(reason);
  });
});
