/** The call the Gemini adapter builds: endpoint, streaming switch and where the key goes. */
import { geminiAdapter } from './index';
import {
  canonicalRequest,
  providerConfig,
  route,
  testKey,
} from '../../../testing/providers/gemini-kit';

describe('Gemini call: URL and headers', () => {
  it('calls generateContent for a whole answer, with the key only in x-goog-api-key', () => {
    const call = geminiAdapter.buildCall(
      canonicalRequest({ stream: false }),
      route,
      providerConfig(),
    );
    expect(call.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent',
    );
    expect(call.headers['x-goog-api-key']).toBe(testKey);
    expect(call.url).not.toContain(testKey);
    expect(call.url).not.toMatch(/[?&]key=/);
    expect(JSON.stringify(call.body)).not.toContain(testKey);
  });

  it('calls streamGenerateContent with alt=sse for a stream', () => {
    const call = geminiAdapter.buildCall(
      canonicalRequest({ stream: true }),
      route,
      providerConfig(),
    );
    expect(call.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
    expect(call.url).not.toContain(testKey);
    expect(call.headers['x-goog-api-key']).toBe(testKey);
  });

  it('joins a base URL with a trailing slash cleanly and takes the vendor’s models/ spelling', () => {
    const call = geminiAdapter.buildCall(
      canonicalRequest(),
      { ...route, upstreamModel: 'models/gemini-2.5-pro' },
      providerConfig({ baseUrl: 'http://127.0.0.1:8080/gemini/' }),
    );
    expect(call.url).toBe(
      'http://127.0.0.1:8080/gemini/v1beta/models/gemini-2.5-pro:generateContent',
    );
  });

  it('escapes a model name that is not URL-safe instead of changing the path', () => {
    const call = geminiAdapter.buildCall(
      canonicalRequest(),
      { ...route, upstreamModel: 'tuned model?x=1#a' },
      providerConfig(),
    );
    expect(call.url).toContain('/models/tuned%20model%3Fx%3D1%23a:generateContent');
  });

  it('sends the provider’s extra headers, but never lets one replace the key', () => {
    const call = geminiAdapter.buildCall(
      canonicalRequest(),
      route,
      providerConfig({ headers: { 'x-team': 'search', 'X-Goog-Api-Key': 'other' } }),
    );
    expect(call.headers).toEqual({ 'x-team': 'search', 'x-goog-api-key': testKey });
  });

  it('sends no key header for a local server that needs no key', () => {
    const call = geminiAdapter.buildCall(canonicalRequest(), route, providerConfig({ apiKey: '' }));
    expect(Object.keys(call.headers).map((name) => name.toLowerCase())).not.toContain(
      'x-goog-api-key',
    );
  });
});
