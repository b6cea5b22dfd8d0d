/**
 * `POST /api/embeddings` against a fake gateway on loopback: what reaches `POST /v1/embeddings`,
 * the answer in input order with its charge and trace id, and no key in any answer.
 */
import { describe, expect, it } from 'vitest';
import { apiErrorSchema, embeddingsResultSchema } from '../../contract/workbench-api';
import { cfRayOf, inferenceHeaders, sendJson } from '../test-support/fake-gateway';
import { useGatewayAndBff } from '../test-support/gateway-and-bff';
import { openRequest, postJson } from '../test-support/harness';

const proxy = useGatewayAndBff((_request, response) => {
  response.writeHead(200, inferenceHeaders('application/json', cfRayOf(0xe)));
  // Out of order on purpose: the BFF sorts by index.
  response.end(
    JSON.stringify({
      object: 'list',
      model: 'sim/embed-small',
      data: [
        { object: 'embedding', index: 1, embedding: [0, 1, 0] },
        { object: 'embedding', index: 0, embedding: [1, 0, 0] },
      ],
      usage: { prompt_tokens: 6, total_tokens: 6, cost: 0.0000006 },
    }),
  );
});

const embedBody = (request: Record<string, unknown> = {}) => ({
  profile: 'main',
  request: { model: 'sim/embed-small', input: ['a cat', 'a dog'], ...request },
});

describe('POST /api/embeddings', () => {
  it('sends the inputs as floats with the profile key and answers vectors in input order', async () => {
    const response = await postJson(proxy.bff, '/api/embeddings', embedBody({ dimensions: 3 }));
    expect(response.status).toBe(200);
    const sent = proxy.gateway.requests.at(-1);
    expect(sent?.url).toBe('/v1/embeddings');
    expect(sent?.headers.authorization).toBe(`Bearer ${proxy.key}`);
    expect(JSON.parse(sent?.body ?? '{}')).toEqual({
      model: 'sim/embed-small',
      input: ['a cat', 'a dog'],
      dimensions: 3,
      encoding_format: 'float',
    });
    const result = embeddingsResultSchema.parse(response.json());
    expect(result.data).toEqual([
      { index: 0, embedding: [1, 0, 0] },
      { index: 1, embedding: [0, 1, 0] },
    ]);
    expect(result.usage).toEqual({ prompt_tokens: 6, total_tokens: 6, cost: 0.0000006 });
    expect(result.meta).toMatchObject({ upstream_status: 200, cf_ray: cfRayOf(0xe) });
    expect(response.text).not.toContain(proxy.key);
  });

  it('passes a gateway error on as an API error with its stage, the key masked', async () => {
    proxy.gateway.setHandler((_request, response) =>
      sendJson(response, 400, {
        error: `dimensions is not supported by sim/embed-small (key ${proxy.key})`,
        type: 'invalid_request',
        stage: 'validation',
        request_id: cfRayOf(400),
      }),
    );
    const response = await postJson(proxy.bff, '/api/embeddings', embedBody({ dimensions: 2 }));
    expect(response.status).toBe(400);
    expect(response.text).not.toContain(proxy.key);
    expect(apiErrorSchema.parse(response.json()).error).toMatchObject({
      message: expect.stringMatching(/^dimensions is not supported/) as unknown,
      stage: 'validation',
      upstream_status: 400,
      type: 'invalid_request',
      cf_ray: cfRayOf(400),
    });
  });

  it('refuses an answer without one vector per input', async () => {
    proxy.gateway.setHandler((_request, response) =>
      sendJson(response, 200, { data: [{ index: 0, embedding: [1] }] }),
    );
    const response = await postJson(proxy.bff, '/api/embeddings', embedBody());
    expect(response.status).toBe(502);
    expect(apiErrorSchema.parse(response.json()).error.stage).toBe('gateway');
  });

  it.each([
    ['no inputs', { input: [] }, 'request.input'],
    ['an empty input', { input: ['a', ''] }, 'request.input.1'],
    ['a dimensions that is not a whole number', { dimensions: 1.5 }, 'request.dimensions'],
    ['no model', { model: '' }, 'request.model'],
  ])('answers %s with a 400 naming the field', async (_case, request, field) => {
    const response = await postJson(proxy.bff, '/api/embeddings', embedBody(request));
    expect(response.status).toBe(400);
    expect(apiErrorSchema.parse(response.json()).error).toMatchObject({
      stage: 'validation',
      field,
    });
    expect(proxy.gateway.requests).toHaveLength(0);
  });

  it('answers an unknown profile with 404 naming the field', async () => {
    const response = await postJson(proxy.bff, '/api/embeddings', {
      ...embedBody(),
      profile: 'nobody',
    });
    expect(response.status).toBe(404);
    expect(apiErrorSchema.parse(response.json()).error).toMatchObject({ field: 'profile' });
  });

  it('aborts the gateway call when the browser goes away', async () => {
    proxy.gateway.setHandler(() => {
      // Holds the answer: only an abort from the BFF ends it.
    });
    const request = openRequest(proxy.bff, 'POST', '/api/embeddings', embedBody());
    await expect.poll(() => proxy.gateway.requests.length).toBe(1);
    request.destroy();
    await proxy.gateway.requests[0]!.clientGone;
  });
});
