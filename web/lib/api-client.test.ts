import { z } from 'zod';
import { jsonResponse } from '../test/render-app';
import { ApiRequestError, apiGet, apiPost, withQuery } from './api-client';
import { shouldRetry } from './query-client';

const schema = z.object({ value: z.number() });

async function failure(promise: Promise<unknown>): Promise<ApiRequestError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiRequestError) return error;
    throw error;
  }
  throw new Error('expected the request to fail');
}

describe('api client', () => {
  it('parses a good answer and posts JSON', async () => {
    const fetchMock = vi.fn(async () => jsonResponse(200, { value: 3 }));
    vi.stubGlobal('fetch', fetchMock);
    await expect(apiPost('/api/thing', { a: 1 }, schema)).resolves.toEqual({ value: 3 });
    const [path, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(path).toBe('/api/thing');
    expect(new Headers(init.headers).get('Content-Type')).toBe('application/json');
    expect(init.body).toBe('{"a":1}');
  });

  it('turns the contract’s error body into an ApiRequestError', async () => {
    vi.stubGlobal('fetch', async () =>
      jsonResponse(402, {
        error: {
          message: 'Key disabled',
          stage: 'admission',
          upstream_status: 402,
          cf_ray: 'abc',
          advice: 'Enable it.',
          type: 'key_disabled',
          field: 'profile',
        },
      }),
    );
    const error = await failure(apiGet('/api/balance?profile=x', schema));
    expect(error).toMatchObject({
      status: 402,
      stage: 'admission',
      message: 'Key disabled',
      cfRay: 'abc',
      advice: 'Enable it.',
      upstreamStatus: 402,
      type: 'key_disabled',
      field: 'profile',
      request: 'GET /api/balance',
    });
    expect(shouldRetry(0, error)).toBe(false);
  });

  it('says clearly when the BFF is unreachable, and allows a retry', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    const error = await failure(apiGet('/api/catalog', schema));
    expect(error.stage).toBe('network');
    expect(error.status).toBe(0);
    expect(error.message).toContain('did not answer GET /api/catalog');
    expect(shouldRetry(0, error)).toBe(true);
    expect(shouldRetry(2, error)).toBe(false);
  });

  it.each(['connect', 'first_byte', 'deadline', 'too_large'])(
    'does not retry a 5xx the BFF already diagnosed (stage %s): it is shown at once',
    async (stage) => {
      vi.stubGlobal('fetch', async () =>
        jsonResponse(502, { error: { message: 'No gateway.', stage, advice: 'Start it.' } }),
      );
      const error = await failure(apiGet('/api/balance?profile=x', schema));
      expect(error.isDiagnosedGatewayFailure).toBe(true);
      expect(shouldRetry(0, error)).toBe(false);
    },
  );

  it('still retries a gateway fault the BFF did not diagnose', async () => {
    vi.stubGlobal('fetch', async () =>
      jsonResponse(502, { error: { message: 'Upstream 500.', stage: 'provider' } }),
    );
    const error = await failure(apiGet('/api/thing', schema));
    expect(error.isDiagnosedGatewayFailure).toBe(false);
    expect(shouldRetry(0, error)).toBe(true);
  });

  it('rejects an answer the contract does not describe', async () => {
    vi.stubGlobal('fetch', async () => jsonResponse(200, { value: 'three' }));
    const error = await failure(apiGet('/api/thing', schema));
    expect(error.stage).toBe('response');
    expect(error.message).toContain('value');
  });

  it('reports a non-JSON error body with its status', async () => {
    vi.stubGlobal('fetch', async () => new Response('<html>Bad gateway</html>', { status: 502 }));
    const error = await failure(apiGet('/api/thing', schema));
    expect(error.status).toBe(502);
    expect(error.stage).toBe('response');
    expect(shouldRetry(0, error)).toBe(false);
  });

  it('builds query strings without empty values', () => {
    expect(withQuery('/api/x', { profile: 'a b', model: '', max: 3, gone: undefined })).toBe(
      '/api/x?profile=a+b&max=3',
    );
  });
});
