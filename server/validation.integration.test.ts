import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Request, Response } from 'express';
import { apiErrorSchema } from '../contract/workbench-api';
import { createErrorHandler } from './core/errors';
import { startFakeGateway, type FakeGateway } from './test-support/fake-gateway';
import { fakeKey, postJson, rawRequest, startTestBff, type TestBff } from './test-support/harness';

let gateway: FakeGateway;
let bff: TestBff;

beforeAll(async () => {
  gateway = await startFakeGateway();
  bff = await startTestBff({
    gatewayBaseUrl: gateway.baseUrl,
    profiles: { main: fakeKey() },
    bodyLimitBytes: 10_000,
  });
});

afterAll(async () => {
  await bff.close();
  await gateway.close();
});

const errorOf = (response: { json(): unknown }) => apiErrorSchema.parse(response.json()).error;

describe('bad input is a 4xx naming the field, never a 500', () => {
  it.each([
    [
      'a missing profile',
      { request: { model: 'm', messages: [{ role: 'user', content: 'x' }] } },
      'profile',
    ],
    [
      'a missing model',
      { profile: 'main', request: { messages: [{ role: 'user', content: 'x' }] } },
      'request.model',
    ],
    ['no messages', { profile: 'main', request: { model: 'm', messages: [] } }, 'request.messages'],
    [
      'a bad role',
      { profile: 'main', request: { model: 'm', messages: [{ role: 'robot', content: 'x' }] } },
      'request.messages.0.role',
    ],
    [
      'a temperature out of range',
      {
        profile: 'main',
        request: { model: 'm', messages: [{ role: 'user', content: 'x' }], temperature: 9 },
      },
      'request.temperature',
    ],
    ['an array body', [1, 2], 'body'],
  ])('chat with %s', async (_label, body, field) => {
    const response = await postJson(bff, '/api/chat', body);
    expect(response.status).toBe(400);
    expect(errorOf(response)).toMatchObject({ stage: 'validation', field });
    expect(errorOf(response).message).toContain(field);
  });

  it('a body that is not JSON', async () => {
    const response = await rawRequest(bff, {
      method: 'POST',
      path: '/api/chat',
      body: '{"profile": ',
    });
    expect(response.status).toBe(400);
    expect(errorOf(response)).toMatchObject({ field: 'body' });
  });

  it.each([
    [
      'a charset other than UTF-8',
      { 'content-type': 'application/json; charset=latin1' },
      '{}',
      415,
    ],
    ['a compressed body', { 'content-encoding': 'gzip' }, '{}', 415],
    ['a bare JSON number (objects and arrays only)', {}, '42', 400],
  ])('%s is refused naming the body', async (_label, headers, body, status) => {
    const response = await rawRequest(bff, { method: 'POST', path: '/api/chat', headers, body });
    expect(response.status).toBe(status);
    expect(errorOf(response)).toMatchObject({ stage: 'validation', field: 'body' });
  });

  it('a POST without a body is a 400 naming the body', async () => {
    const response = await rawRequest(bff, {
      method: 'POST',
      path: '/api/chat',
      headers: { 'content-length': '0' },
    });
    expect(response.status).toBe(400);
    expect(errorOf(response).field).toBe('body');
  });

  it('a body over the size limit is 413', async () => {
    const response = await postJson(bff, '/api/chat', {
      profile: 'main',
      padding: 'x'.repeat(20_000),
    });
    expect(response.status).toBe(413);
    // The limit and what to do about it, not just "too large".
    expect(errorOf(response)).toMatchObject({
      field: 'body',
      message: expect.stringMatching(/larger than the workbench takes \(\d/),
      advice: expect.stringContaining('Send less at once'),
    });
  });

  it.each([
    ['declares a length over the limit', 'Content-Length: 268435456', (chunk: Buffer) => chunk],
    [
      'comes chunked, without an end',
      'Transfer-Encoding: chunked',
      (chunk: Buffer) =>
        Buffer.concat([
          Buffer.from(`${chunk.length.toString(16)}\r\n`),
          chunk,
          Buffer.from('\r\n'),
        ]),
    ],
  ])(
    'a body that %s gets its 413 at once, is read no further than about twice the limit, then the connection closes',
    async (_label, framing, frame) => {
      // Express's parser read such a body to its end before answering: all 256 MiB, or forever.
      const socket = net.connect(bff.port, '127.0.0.1');
      socket.on('error', () => undefined);
      let received = '';
      socket.on('data', (data: Buffer) => (received += data.toString()));
      const closed = new Promise<boolean>((resolve) => socket.once('close', () => resolve(true)));
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        `POST /api/chat HTTP/1.1\r\nHost: 127.0.0.1:${bff.port}\r\n` +
          `Origin: http://127.0.0.1:${bff.port}\r\nContent-Type: application/json\r\n` +
          `${framing}\r\n\r\n`,
      );
      const chunk = frame(Buffer.alloc(64 * 1024, 'a'));
      const cap = 256 * 1024 * 1024;
      let written = 0;
      while (written < cap && !socket.destroyed) {
        written += chunk.length;
        if (!socket.write(chunk)) {
          const drained = new Promise((resolve) => socket.once('drain', resolve));
          const stalled = new Promise((resolve) => setTimeout(resolve, 1_000));
          await Promise.race([drained, closed, stalled]);
          if (!socket.writableNeedDrain) continue;
          break;
        }
      }
      const closedInTime = await Promise.race([
        closed,
        // Well before the keep-alive timeout (5 s), which would close a stalled connection too.
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2_000)),
      ]);
      socket.destroy();
      expect(received).toMatch(/^HTTP\/1\.1 413 /);
      expect(closedInTime).toBe(true);
      // The bound is 20 KB here; what the socket buffers held when it closed comes on top.
      expect(written).toBeLessThan(64 * 1024 * 1024);
    },
  );

  it.each([
    ['/api/balance', 'profile'],
    ['/api/balance?profile=main&probe=yes', 'probe'],
    ['/api/checks', 'profile'],
    ['/api/validate-key/estimate?profile=main', 'model'],
    ['/api/validate-key/estimate?model=sim/echo&max_tokens=999', 'max_tokens'],
    ['/api/validate-key/estimate?model=sim/echo&max_tokens=abc', 'max_tokens'],
    ['/api/balance?profile=a&profile=b', 'profile'],
  ])('GET %s names %s', async (path, field) => {
    const response = await rawRequest(bff, { path });
    expect(response.status).toBe(400);
    expect(errorOf(response).field).toBe(field);
  });

  it.each([
    ['/api/validate-key', { profile: 'main', model: 'sim/echo', max_tokens: 1000 }, 'max_tokens'],
    ['/api/validate-key', { profile: 'main' }, 'model'],
    ['/api/checks', { profile: 'main', include_paid: 'yes' }, 'include_paid'],
    ['/api/checks', { profile: 'main', only: ['no-such-check'] }, 'only'],
  ])('POST %s names the field', async (path, body, field) => {
    const response = await postJson(bff, path, body);
    expect(response.status).toBe(400);
    expect(errorOf(response).field).toBe(field);
  });

  it('an unknown profile on every route is a 404 naming profile', async () => {
    for (const response of [
      await rawRequest(bff, { path: '/api/balance?profile=ghost' }),
      await rawRequest(bff, { path: '/api/checks?profile=ghost' }),
      await postJson(bff, '/api/validate-key', { profile: 'ghost', model: 'sim/echo' }),
      await postJson(bff, '/api/checks', { profile: 'ghost' }),
    ]) {
      expect(response.status).toBe(404);
      expect(errorOf(response)).toMatchObject({ stage: 'profile', field: 'profile' });
    }
  });

  it('a model not in the catalog names model', async () => {
    const response = await rawRequest(bff, {
      path: '/api/validate-key/estimate?model=nope/nothing',
    });
    expect(response.status).toBe(400);
    expect(errorOf(response).field).toBe('model');
  });
});

describe('deeply nested input (a nesting bomb)', () => {
  /** `levels` arrays inside each other, built at run time: a few hundred KB of brackets. */
  const bomb = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

  it('tools nested 200,000 levels deep is a 400 naming request.tools, with no gateway call', async () => {
    const chatCallsBefore = gateway.requests.filter((sent) => sent.url.includes('/chat/')).length;
    const body =
      '{"profile":"main","request":{"model":"sim/echo",' +
      `"messages":[{"role":"user","content":"x"}],"tools":${bomb(200_000)}}}`;
    // The bomb is 400 KB: a BFF with the default body limit, not this file's 10 KB one.
    const bff = await startTestBff({
      gatewayBaseUrl: gateway.baseUrl,
      profiles: { main: fakeKey() },
    });
    try {
      const response = await rawRequest(bff, { method: 'POST', path: '/api/chat', body });
      expect(response.status).toBe(400);
      const error = errorOf(response);
      expect(error).toMatchObject({ stage: 'validation', field: 'request.tools' });
      expect(error.message).toMatch(/^request\.tools: .*nested deeper than 64 levels/);
      expect(gateway.requests.filter((sent) => sent.url.includes('/chat/'))).toHaveLength(
        chatCallsBefore,
      );
      expect(bff.logLines.filter((line) => line.includes('"msg":"unexpected error"'))).toEqual([]);
    } finally {
      await bff.close();
    }
  });

  it.each([
    ['tool_choice', { tool_choice: JSON.parse(bomb(100)) as unknown }, 'request.tool_choice'],
    ['a deep object in a tool', { tools: [deepObject(100)] }, 'request.tools'],
  ])('%s too deep names its field', async (_label, extra, field) => {
    const response = await postJson(bff, '/api/chat', {
      profile: 'main',
      request: { model: 'sim/echo', messages: [{ role: 'user', content: 'x' }], ...extra },
    });
    expect(response.status).toBe(400);
    expect(errorOf(response).field).toBe(field);
  });

  it('a deep body on another route names its top field', async () => {
    const response = await rawRequest(bff, {
      method: 'POST',
      path: '/api/checks',
      body: `{"profile":"main","only":${bomb(1_000)}}`,
    });
    expect(response.status).toBe(400);
    expect(errorOf(response).field).toBe('only');
  });

  it('a real tool schema, nested a few levels, passes', async () => {
    const response = await postJson(bff, '/api/chat', {
      profile: 'main',
      request: {
        model: 'sim/echo',
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ type: 'function', function: { name: 'f', parameters: deepObject(20) } }],
      },
    });
    expect(response.status).toBe(200);
  });
});

/** `{ "a": { "a": … } }`, `levels` objects deep. */
function deepObject(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let level = 1; level < levels; level += 1) value = { a: value };
  return value;
}

describe('error handler', () => {
  it('logs an unexpected error that comes after a stream started, and ends the stream', () => {
    const logged: unknown[] = [];
    const handler = createErrorHandler(
      () => [],
      (error) => logged.push(error),
    );
    let ended = false;
    const response = {
      headersSent: true,
      end: () => {
        ended = true;
      },
    } as unknown as Response;
    const bug = new TypeError('a bug mid-stream');
    handler(bug, {} as Request, response, () => undefined);
    expect(ended).toBe(true);
    expect(logged).toEqual([bug]);
  });
});
