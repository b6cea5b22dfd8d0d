import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { chatResultSchema, apiErrorSchema, type CallMeta } from '../../contract/workbench-api';
import {
  cfRayOf,
  chunkLine,
  completionBody,
  inferenceHeaders,
  sendJson,
} from '../test-support/fake-gateway';
import { useGatewayAndBff } from '../test-support/gateway-and-bff';
import { openRequest, openStream, postJson } from '../test-support/harness';

const proxy = useGatewayAndBff();

const chatBody = (stream: boolean) => ({
  profile: 'main',
  request: {
    model: 'sim/echo',
    messages: [{ role: 'user', content: 'Hi' }],
    max_tokens: 5,
    stream,
  },
});

describe('POST /api/chat', () => {
  it('sends the profile key as Bearer and returns the completion with its meta', async () => {
    const response = await postJson(proxy.bff, '/api/chat', chatBody(false));
    expect(response.status).toBe(200);
    const result = chatResultSchema.parse(response.json());
    expect(result.meta.upstream_status).toBe(200);
    expect(result.meta.cf_ray).toBe('00000000000000c8-TST');
    expect(result.meta.total_ms).not.toBeNull();
    expect(result.body).toEqual(completionBody('sim/echo'));
    // The provider that answered, from the gateway's header; one attempt when it says no more.
    expect(result.meta).toMatchObject({ provider: 'primary', attempts: 1 });
    const sent = proxy.gateway.requests.at(-1);
    expect(sent?.url).toBe('/v1/chat/completions');
    expect(sent?.headers.authorization).toBe(`Bearer ${proxy.key}`);
    expect(JSON.parse(sent?.body ?? '{}')).toMatchObject({ model: 'sim/echo', max_tokens: 5 });
  });

  it('passes tool_choice and response_format on to the gateway unchanged', async () => {
    const extra = {
      tools: [{ type: 'function', function: { name: 'get_weather' } }],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'weather', schema: { type: 'object' } },
      },
    };
    const body = chatBody(false);
    const response = await postJson(proxy.bff, '/api/chat', {
      ...body,
      request: { ...body.request, ...extra },
    });
    expect(response.status).toBe(200);
    expect(JSON.parse(proxy.gateway.requests.at(-1)?.body ?? '{}')).toMatchObject(extra);
  });

  it('passes a gateway error body on with keys masked, and the upstream status in meta', async () => {
    proxy.gateway.setHandler((_request, response) =>
      sendJson(response, 402, {
        error: `Key ${proxy.key} is disabled`,
        type: 'key_disabled',
        stage: 'admission',
      }),
    );
    const response = await postJson(proxy.bff, '/api/chat', chatBody(false));
    expect(response.status).toBe(200);
    expect(response.text).not.toContain(proxy.key);
    const result = chatResultSchema.parse(response.json());
    expect(result.meta.upstream_status).toBe(402);
    expect((result.body as { error: string }).error).toMatch(/^Key sk-.{4}….{4} is disabled$/);
  });

  it('turns a gateway error before a stream into a JSON API error with its stage', async () => {
    proxy.gateway.setHandler((_request, response) =>
      sendJson(response, 402, {
        error: 'depleted',
        type: 'insufficient_balance',
        stage: 'admission',
      }),
    );
    const response = await postJson(proxy.bff, '/api/chat', chatBody(true));
    expect(response.status).toBe(402);
    const error = apiErrorSchema.parse(response.json()).error;
    expect(error).toMatchObject({
      stage: 'admission',
      upstream_status: 402,
      type: 'insufficient_balance',
    });
    expect(error.advice).toMatch(/Keys page/);
  });

  it('streams: meta first, the gateway lines unchanged, then done; with the stream headers', async () => {
    const response = await postJson(proxy.bff, '/api/chat', chatBody(true));
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(response.headers['cache-control']).toBe('no-cache, no-transform');
    expect(response.headers['x-accel-buffering']).toBe('no');
    expect(response.headers['content-encoding']).toBeUndefined();
    const events = response.text.split('\n\n').filter((event) => event !== '');
    expect(events[0]).toMatch(/^event: meta\ndata: /);
    const meta = JSON.parse(events[0]!.split('data: ')[1]!) as Record<string, unknown>;
    expect(meta).toMatchObject({
      upstream_status: 200,
      cf_ray: '0000000000000007-TST',
      total_ms: null,
      provider: 'primary',
      attempts: 1,
    });
    expect(events.slice(1, 4).map((event) => `${event}\n\n`)).toEqual([
      chunkLine('O'),
      chunkLine('K'),
      'data: [DONE]\n\n',
    ]);
    expect(events[4]).toMatch(/^event: done\ndata: /);
    const done = JSON.parse(events[4]!.split('data: ')[1]!) as { total_ms: number | null };
    expect(typeof done.total_ms).toBe('number');
  });

  it('passes on the provider and the number of attempts when the gateway fell back', async () => {
    proxy.gateway.setHandler((_request, response) => {
      response.writeHead(
        200,
        inferenceHeaders('text/event-stream', cfRayOf(9), {
          provider: 'backup',
          attempts: 3,
        }),
      );
      response.end(`${chunkLine('OK')}data: [DONE]\n\n`);
    });
    const streamed = await postJson(proxy.bff, '/api/chat', chatBody(true));
    const meta = JSON.parse(streamed.text.split('\n\n')[0]!.split('data: ')[1]!) as CallMeta;
    expect(meta).toMatchObject({ provider: 'backup', attempts: 3 });
    expect(streamed.text).toMatch(/event: done\ndata: \{[^\n]*"provider":"backup","attempts":3/);
  });

  it('passes on what the gateway dropped or changed, and only well-formed entries', async () => {
    proxy.gateway.setHandler((_request, response) => {
      response.writeHead(200, {
        'content-type': 'application/json',
        'x-gateway-provider': 'primary',
        'x-gateway-dropped-params': 'generationConfig.topK,<img src=x>,thinking',
        'x-gateway-adjusted-params': 'max_tokens=32000->8192',
      });
      response.end(JSON.stringify(completionBody()));
    });
    const result = chatResultSchema.parse(
      (await postJson(proxy.bff, '/api/chat', chatBody(false))).json(),
    );
    expect(result.meta.translation).toEqual({
      dropped: ['generationConfig.topK', 'thinking'],
      adjusted: ['max_tokens=32000->8192'],
    });
  });

  it.each([
    ['a provider id of another shape', { 'x-gateway-provider': '<script>' }, null, null],
    [
      'an attempts count that is not a number',
      { 'x-gateway-provider': 'primary', 'x-gateway-attempts': 'two' },
      'primary',
      1,
    ],
    ['no routing headers at all', {}, null, null],
  ])('keeps only well-formed routing headers: %s', async (_case, headers, provider, attempts) => {
    proxy.gateway.setHandler((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(completionBody()));
    });
    const result = chatResultSchema.parse(
      (await postJson(proxy.bff, '/api/chat', chatBody(false))).json(),
    );
    expect(result.meta).toMatchObject({ provider, attempts });
  });

  it('delivers the first chunk before the gateway has finished', async () => {
    let finishGateway: () => void = () => undefined;
    const gatewayFinished = new Promise<void>((resolve) => {
      finishGateway = resolve;
    });
    let gatewayDone = false;
    proxy.gateway.setHandler(async (_request, response) => {
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cf-ray': '0000000000000001-TST',
      });
      response.write(chunkLine('first'));
      await gatewayFinished;
      response.write(chunkLine('second'));
      response.end('data: [DONE]\n\n');
      gatewayDone = true;
    });
    const stream = openStream(proxy.bff, chatBody(true));
    const received = await stream.waitFor((text) => text.includes('"first"'));
    // The gateway is still holding its answer open: what arrived cannot have been buffered.
    expect(gatewayDone).toBe(false);
    expect(received).not.toContain('"second"');
    finishGateway();
    const all = await stream.waitFor((text) => text.includes('event: done'));
    expect(all).toContain('"second"');
  });

  it('reads the gateway only as fast as the browser reads: a tab that stops reading holds it back', async () => {
    // About 48 MB, far more than the sockets between the three can hold.
    const piece = chunkLine('x'.repeat(64 * 1024));
    const pieces = 750;
    let written = 0;
    proxy.gateway.setHandler(async (_request, response) => {
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cf-ray': '0000000000000003-TST',
      });
      for (let index = 0; index < pieces; index += 1) {
        if (!response.write(piece)) {
          await new Promise((resolve) => response.once('drain', resolve));
        }
        written += 1;
      }
      response.end('data: [DONE]\n\n');
    });
    const request = openRequest(proxy.bff, 'POST', '/api/chat', chatBody(true));
    const reply = await new Promise<IncomingMessage>((resolve) => request.on('response', resolve));
    reply.pause();
    // While the browser reads nothing, the gateway is held back, not read to its end.
    await expect.poll(() => written, { timeout: 5_000 }).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(written).toBeLessThan(pieces);
    // Once it reads, everything arrives, in order, and the stream ends as usual.
    let received = '';
    reply.setEncoding('utf8');
    reply.on('data', (text: string) => (received += text));
    reply.resume();
    await new Promise((resolve) => reply.on('end', resolve));
    expect(written).toBe(pieces);
    expect(received.split('"content":"x').length - 1).toBe(pieces);
    expect(received).toContain('event: done');
  });

  it('aborts the gateway request when the browser goes away mid-stream', async () => {
    proxy.gateway.setHandler((_request, response) => {
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cf-ray': '0000000000000002-TST',
      });
      response.write(chunkLine('first'));
      // Never ends on its own: only an abort from the BFF closes it.
    });
    const stream = openStream(proxy.bff, chatBody(true));
    await stream.waitFor((text) => text.includes('"first"'));
    stream.request.destroy();
    await proxy.gateway.requests.at(-1)!.clientGone;
    expect(proxy.gateway.requests.at(-1)!.url).toBe('/v1/chat/completions');
    // The BFF logged the request as ended by the client.
    await expect
      .poll(() => proxy.bff.logLines.some((line) => line.includes('"client_closed":true')))
      .toBe(true);
  });

  it('aborts a non-streamed gateway call when the browser goes away', async () => {
    proxy.gateway.setHandler(() => {
      // Holds the answer: a slow, non-streamed completion.
    });
    const request = openRequest(proxy.bff, 'POST', '/api/chat', chatBody(false));
    await expect.poll(() => proxy.gateway.requests.length).toBe(1);
    request.destroy();
    await proxy.gateway.requests[0]!.clientGone;
  });

  it('reports a gateway that breaks off mid-stream as an error event, then done', async () => {
    proxy.gateway.setHandler((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chunkLine('partial'));
      setImmediate(() => response.destroy());
    });
    const response = await postJson(proxy.bff, '/api/chat', chatBody(true));
    expect(response.status).toBe(200);
    expect(response.text).toContain('"partial"');
    expect(response.text).toMatch(
      /event: error\ndata: \{"error":\{"message":"[^"]+","stage":"gateway"/,
    );
    expect(response.text).toMatch(/event: done\ndata: /);
  });

  it('answers an unknown profile with 404 naming the field', async () => {
    const response = await postJson(proxy.bff, '/api/chat', {
      ...chatBody(false),
      profile: 'nobody',
    });
    expect(response.status).toBe(404);
    expect(apiErrorSchema.parse(response.json()).error).toMatchObject({
      stage: 'profile',
      field: 'profile',
    });
    expect(proxy.gateway.requests).toHaveLength(0);
  });
});
