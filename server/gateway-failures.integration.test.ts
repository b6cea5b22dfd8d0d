import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { apiErrorSchema, catalogSchema, healthSchema } from '../contract/workbench-api';
import type { WorkbenchOptions } from './app';
import {
  chunkLine,
  defaultHandler,
  sendJson,
  startFakeGateway,
  type FakeGateway,
  type FakeHandler,
  type RecordedRequest,
} from './test-support/fake-gateway';
import {
  fakeKey,
  openStream,
  postJson,
  rawRequest,
  startTestBff,
  type TestBff,
} from './test-support/harness';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function bffFor(
  gatewayBaseUrl: string,
  timeouts = {},
  options: Partial<WorkbenchOptions> = {},
): Promise<TestBff> {
  const bff = await startTestBff({
    gatewayBaseUrl,
    profiles: { main: fakeKey() },
    timeouts,
    ...options,
  });
  cleanups.push(() => bff.close());
  return bff;
}

async function fake(): Promise<FakeGateway> {
  const gateway = await startFakeGateway();
  cleanups.push(() => gateway.close());
  return gateway;
}

/** A TCP server on a loopback port, closed with its connections after the test. */
async function tcpServer(onConnection: (socket: Socket) => void): Promise<number> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return (server.address() as AddressInfo).port;
}

/** A TCP server that answers every connection with bytes that are not HTTP. */
async function garbageServer(): Promise<string> {
  const port = await tcpServer((socket) => socket.end('this is not HTTP at all\r\n\r\n'));
  return `http://127.0.0.1:${port}`;
}

/**
 * A TCP server that accepts connections and never says a word: an https:// client's TLS
 * handshake never completes, so the connection is never up (a deterministic connect timeout).
 */
function silentServer(): Promise<number> {
  return tcpServer(() => undefined);
}

/** A port with nothing listening on it. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

const chat = {
  profile: 'main',
  request: { model: 'sim/echo', messages: [{ role: 'user', content: 'Hi' }] },
};

describe('gateway down, slow or answering garbage', () => {
  it('down: stage connect, and health says unreachable', async () => {
    const bff = await bffFor(await closedPort());
    const response = await postJson(bff, '/api/chat', chat);
    expect(response.status).toBe(502);
    expect(apiErrorSchema.parse(response.json()).error.stage).toBe('connect');
    const health = healthSchema.parse((await rawRequest(bff, { path: '/api/health' })).json());
    expect(health).toMatchObject({ reachable: false, latency_ms: null });
    expect(health.error).toMatch(/connect/);
  });

  it('down: the advice names the embedded gateway only in embedded mode', async () => {
    const baseUrl = await closedPort();
    const external = await bffFor(baseUrl);
    const externalError = apiErrorSchema.parse(
      (await postJson(external, '/api/chat', chat)).json(),
    ).error;
    expect(externalError.advice).toMatch(/GATEWAY_BASE_URL/);
    expect(externalError.advice).not.toMatch(/embedded/);
    const externalHealth = healthSchema.parse(
      (await rawRequest(external, { path: '/api/health' })).json(),
    );
    expect(externalHealth.advice).not.toMatch(/embedded/);

    const embedded = await bffFor(baseUrl, {}, { mode: 'embedded' });
    const embeddedError = apiErrorSchema.parse(
      (await postJson(embedded, '/api/chat', chat)).json(),
    ).error;
    expect(embeddedError.advice).toMatch(/embedded gateway/);
    expect(embeddedError.advice).not.toMatch(/GATEWAY_BASE_URL/);
  });

  it('health reports the embedded gateway restarting without calling it', async () => {
    const gateway = await fake();
    const restarting = {
      state: 'restarting' as const,
      attempt: 2,
      restarts: 1,
      last_exit: 'signal SIGKILL',
      retry_in_ms: 1500,
    };
    let status: typeof restarting | ReturnType<typeof running> = restarting;
    const running = () => ({ ...restarting, state: 'running' as const, attempt: 0 });
    const bff = await bffFor(
      gateway.baseUrl,
      {},
      { mode: 'embedded', embeddedGateway: () => status },
    );
    const down = healthSchema.parse((await rawRequest(bff, { path: '/api/health' })).json());
    expect(down).toMatchObject({ reachable: false, embedded_gateway: restarting });
    expect(down.error).toBe(
      'The embedded gateway stopped (signal SIGKILL); restarting it (attempt 2).',
    );
    expect(gateway.requests).toHaveLength(0);

    status = running();
    const up = healthSchema.parse((await rawRequest(bff, { path: '/api/health' })).json());
    expect(up).toMatchObject({ reachable: true, embedded_gateway: { state: 'running' } });
    expect(up.error).toBeUndefined();
  });

  it('a connection that never comes up: stage connect after the configured connect timeout', async () => {
    const bff = await bffFor(`https://127.0.0.1:${await silentServer()}`, { connectMs: 200 });
    const response = await postJson(bff, '/api/chat', chat);
    expect(response.status).toBe(502);
    const error = apiErrorSchema.parse(response.json()).error;
    expect(error.stage).toBe('connect');
    // The timer's own message, not a refusal's.
    expect(error.message).toMatch(/within 200 ms/);
  });

  it('slow: stage first_byte after the configured timeout, and the gateway call is abandoned', async () => {
    const gateway = await fake();
    gateway.setHandler(() => {
      // Accepts the request and never answers.
    });
    const bff = await bffFor(gateway.baseUrl, { firstByteMs: 300 });
    const response = await postJson(bff, '/api/chat', chat);
    expect(response.status).toBe(504);
    expect(apiErrorSchema.parse(response.json()).error.stage).toBe('first_byte');
    await gateway.requests[0]!.clientGone;
  });

  it('stalls mid-body: stage gateway after the idle timeout', async () => {
    const gateway = await fake();
    gateway.setHandler((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"id":');
    });
    const bff = await bffFor(gateway.baseUrl, { idleMs: 300 });
    const response = await postJson(bff, '/api/chat', chat);
    expect(response.status).toBe(502);
    expect(apiErrorSchema.parse(response.json()).error.stage).toBe('gateway');
  });

  it('garbage: an answer that is not HTTP is stage gateway', async () => {
    const bff = await bffFor(await garbageServer());
    const response = await postJson(bff, '/api/chat', chat);
    expect(response.status).toBe(502);
    expect(apiErrorSchema.parse(response.json()).error.stage).toBe('gateway');
  });

  it('garbage: a 200 that is not JSON is stage gateway', async () => {
    const gateway = await fake();
    gateway.setHandler((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html>proxy page</html>');
    });
    const bff = await bffFor(gateway.baseUrl);
    const response = await postJson(bff, '/api/chat', chat);
    expect(response.status).toBe(502);
    expect(apiErrorSchema.parse(response.json()).error).toMatchObject({
      stage: 'gateway',
      upstream_status: 200,
    });
    const catalog = await rawRequest(bff, { path: '/api/catalog' });
    expect(catalog.status).toBe(502);
    expect(apiErrorSchema.parse(catalog.json()).error.stage).toBe('gateway');
  });

  it('health: reachable with a latency when the gateway answers', async () => {
    const gateway = await fake();
    const bff = await bffFor(gateway.baseUrl);
    const health = healthSchema.parse((await rawRequest(bff, { path: '/api/health' })).json());
    expect(health).toMatchObject({
      mode: 'external',
      gateway_base_url: gateway.baseUrl,
      reachable: true,
    });
    expect(typeof health.latency_ms).toBe('number');
    expect(gateway.requests[0]?.url).toBe('/v1/models');
    expect(gateway.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('health: a gateway answering 5xx is reachable but reported', async () => {
    const gateway = await fake();
    gateway.setHandler((_request, response) => sendJson(response, 503, { error: 'overloaded' }));
    const bff = await bffFor(gateway.baseUrl);
    const health = healthSchema.parse((await rawRequest(bff, { path: '/api/health' })).json());
    expect(health.reachable).toBe(true);
    expect(health.error).toMatch(/503/);
  });
});

/** True once the BFF has left this request; lets a fake's sending loop stop. */
function goneFlag(request: RecordedRequest): () => boolean {
  let gone = false;
  void request.clientGone.then(() => {
    gone = true;
  });
  return () => gone;
}

/**
 * The catalog and the balance answered by `misbehave`; everything else as a healthy gateway.
 */
/** The calls `onCatalogAndBalance` answered badly (not the key status beside the balance). */
const misbehaving = (gateway: FakeGateway) =>
  gateway.requests.filter((request) =>
    ['/v1/models', '/v1/balance'].includes(request.url.split('?')[0] ?? ''),
  );

function onCatalogAndBalance(misbehave: FakeHandler): FakeHandler {
  return (request, response) => {
    const path = request.url.split('?')[0];
    if (path === '/v1/models' || path === '/v1/balance') return misbehave(request, response);
    return defaultHandler(request, response);
  };
}

describe('a gateway that drip-feeds or floods a non-streamed answer', () => {
  it('drip-fed: stage deadline after the body deadline, the call is abandoned, the BFF answers on', async () => {
    const gateway = await fake();
    gateway.setHandler(
      onCatalogAndBalance(async (request, response) => {
        const gone = goneFlag(request);
        response.writeHead(200, { 'content-type': 'application/json' });
        // One byte at a time, each well within the idle timeout; bounded so a BFF without a
        // deadline makes the test time out instead of hanging for ever.
        for (let sent = 0; sent < 400 && !gone() && !response.destroyed; sent += 1) {
          response.write(' ');
          await sleep(25);
        }
        if (!gone() && !response.destroyed) response.end('{}');
      }),
    );
    const bff = await bffFor(gateway.baseUrl, { bodyDeadlineMs: 300 });
    for (const path of ['/api/catalog', '/api/balance?profile=main']) {
      const response = await rawRequest(bff, { path });
      expect(response.status, path).toBe(504);
      const error = apiErrorSchema.parse(response.json()).error;
      expect(error.stage, path).toBe('deadline');
      expect(error.message).toMatch(/within 300 ms/);
    }
    await Promise.all(misbehaving(gateway).map((request) => request.clientGone));
    gateway.setHandler(defaultHandler);
    const catalog = await rawRequest(bff, { path: '/api/catalog?refresh=1' });
    expect(catalog.status).toBe(200);
    expect(catalogSchema.parse(catalog.json()).models.length).toBeGreaterThan(0);
  });

  it('endless: stage too_large once the size cap is passed, and the gateway is cut off', async () => {
    const gateway = await fake();
    const chunk = Buffer.alloc(64 * 1024, ' ');
    const mostChunks = 1024; // 64 MiB: far past the cap, still a bound for a BFF without one
    let sentBytes = 0;
    gateway.setHandler(
      onCatalogAndBalance(async (request, response) => {
        const gone = goneFlag(request);
        response.writeHead(200, { 'content-type': 'application/json' });
        for (let index = 0; index < mostChunks && !gone() && !response.destroyed; index += 1) {
          sentBytes += chunk.length;
          if (!response.write(chunk))
            await Promise.race([once(response, 'drain'), request.clientGone]);
        }
        if (!gone() && !response.destroyed) response.end('{}');
      }),
    );
    const bff = await bffFor(gateway.baseUrl, {}, { gatewayAnswerLimitBytes: 256 * 1024 });
    for (const path of ['/api/catalog', '/api/balance?profile=main']) {
      const response = await rawRequest(bff, { path });
      expect(response.status, path).toBe(502);
      const error = apiErrorSchema.parse(response.json()).error;
      expect(error.stage, path).toBe('too_large');
      expect(error.message).toMatch(/larger than 262144 bytes/);
    }
    await Promise.all(misbehaving(gateway).map((request) => request.clientGone));
    expect(sentBytes).toBeLessThan(mostChunks * chunk.length);
    gateway.setHandler(defaultHandler);
    expect((await rawRequest(bff, { path: '/api/catalog?refresh=1' })).status).toBe(200);
  });

  it('a Content-Length over the cap: stage too_large without reading the body', async () => {
    const gateway = await fake();
    gateway.setHandler(
      onCatalogAndBalance((_request, response) => {
        response.writeHead(200, {
          'content-type': 'application/json',
          'content-length': String(1024 * 1024 * 1024),
        });
        response.write('{"data":');
        // Then silence: only the declared length can tell the BFF not to wait.
      }),
    );
    const bff = await bffFor(gateway.baseUrl, {}, { gatewayAnswerLimitBytes: 256 * 1024 });
    const response = await rawRequest(bff, { path: '/api/catalog' });
    expect(response.status).toBe(502);
    expect(apiErrorSchema.parse(response.json()).error.stage).toBe('too_large');
    await gateway.requests[0]!.clientGone;
  });

  it('holds its headers: stage first_byte at the whole-call deadline, long before the first-byte timeout', async () => {
    const gateway = await fake();
    // Accepts the catalog and balance calls and never sends a header.
    gateway.setHandler(onCatalogAndBalance(() => undefined));
    // The first-byte timeout stays at its two minutes: only the call deadline can end these.
    const bff = await bffFor(gateway.baseUrl, { callDeadlineMs: 300 });
    for (const path of ['/api/catalog', '/api/balance?profile=main']) {
      const response = await rawRequest(bff, { path });
      expect(response.status, path).toBe(504);
      const error = apiErrorSchema.parse(response.json()).error;
      expect(error.stage, path).toBe('first_byte');
      expect(error.message).toMatch(
        /within 300 ms, the workbench's deadline for a whole gateway call/,
      );
    }
    await Promise.all(misbehaving(gateway).map((request) => request.clientGone));
  });

  it('answers too late in all: stage deadline when the call deadline passes while the body arrives', async () => {
    const gateway = await fake();
    gateway.setHandler(
      onCatalogAndBalance(async (request, response) => {
        const gone = goneFlag(request);
        // Headers late, then a body that keeps coming well within the idle and body limits.
        await sleep(150);
        response.writeHead(200, { 'content-type': 'application/json' });
        for (let sent = 0; sent < 400 && !gone() && !response.destroyed; sent += 1) {
          response.write(' ');
          await sleep(25);
        }
        if (!gone() && !response.destroyed) response.end('{}');
      }),
    );
    const bff = await bffFor(gateway.baseUrl, { callDeadlineMs: 400 });
    const response = await rawRequest(bff, { path: '/api/catalog' });
    expect(response.status).toBe(504);
    const error = apiErrorSchema.parse(response.json()).error;
    expect(error.stage).toBe('deadline');
    expect(error.message).toMatch(/within 400 ms of the call's start/);
    await Promise.all(misbehaving(gateway).map((request) => request.clientGone));
  });

  it("a model's answer (a POST) keeps its stages: the call deadline does not cut it", async () => {
    const gateway = await fake();
    gateway.setHandler(async (request, response) => {
      if (request.url.startsWith('/v1/chat/completions')) await sleep(600);
      return defaultHandler(request, response);
    });
    const bff = await bffFor(gateway.baseUrl, { callDeadlineMs: 200 });
    const response = await postJson(bff, '/api/chat', chat);
    expect(response.status).toBe(200);
  });

  it('a stream has no body deadline: it may run longer while its chunks keep coming', async () => {
    const gateway = await fake();
    gateway.setHandler(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let index = 0; index < 6; index += 1) {
        response.write(chunkLine(String(index)));
        await sleep(100);
      }
      response.end('data: [DONE]\n\n');
    });
    const bff = await bffFor(gateway.baseUrl, { bodyDeadlineMs: 200 });
    const { waitFor } = openStream(bff, { ...chat, request: { ...chat.request, stream: true } });
    const text = await waitFor((received) => received.includes('event: done'));
    expect(text).toContain('data: [DONE]');
    expect(text).not.toContain('event: error');
  });
});
