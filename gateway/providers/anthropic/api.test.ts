/** The HTTP call: endpoint, and headers that carry the configured key and nothing in its place. */
import { anthropicAdapter } from './index';
import {
  TEST_KEY,
  testConfig,
  testRequest,
  testRoute,
} from '../../../testing/providers/anthropic-kit';

const callWith = (overrides: Parameters<typeof testConfig>[0] = {}) =>
  anthropicAdapter.buildCall(testRequest(), testRoute, testConfig(overrides));

describe('the Anthropic call', () => {
  it('posts to /v1/messages under the base URL, however the base ends', () => {
    expect(callWith({ baseUrl: 'https://api.anthropic.example' }).url).toBe(
      'https://api.anthropic.example/v1/messages',
    );
    expect(callWith({ baseUrl: 'http://127.0.0.1:4010/proxy//' }).url).toBe(
      'http://127.0.0.1:4010/proxy/v1/messages',
    );
  });

  it('sends the configured key as x-api-key, the API version, and nowhere else the key', () => {
    const { headers } = callWith();
    expect(headers).toEqual({ 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' });
  });

  it('lets the configured headers pin another version and add a beta, but never replace the key', () => {
    const { headers } = callWith({
      headers: {
        'Anthropic-Version': '2024-01-01',
        'anthropic-beta': 'prompt-caching-2024-07-31',
        'X-Api-Key': 'sk-ant-someone-else',
        Authorization: 'Bearer sk-ant-someone-else',
      },
    });
    expect(headers).toEqual({
      'x-api-key': TEST_KEY,
      'anthropic-version': '2024-01-01',
      'anthropic-beta': 'prompt-caching-2024-07-31',
    });
  });

  it('sends no key header when the provider has no key (a local proxy)', () => {
    expect(callWith({ apiKey: '' }).headers).not.toHaveProperty('x-api-key');
  });
});
