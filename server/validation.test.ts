import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Request, Response } from 'express';
import { apiErrorSchema } from '../contract/workbench-api';
import { createErrorHandler } from './errors';
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

  it('a body over the size limit is 413', async () => {
    const response = await postJson(bff, '/api/chat', {
      profile: 'main',
      padding: 'x'.repeat(20_000),
    });
    expect(response.status).toBe(413);
    expect(errorOf(response)).toMatchObject({ field: 'body' });
  });

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
