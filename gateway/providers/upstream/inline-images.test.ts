import { describe, expect, it } from 'vitest';
import { canonicalRequest } from '../../../testing/upstreams/canonical';
import { inlineImageUrls } from './inline-images';

/** Names the test resolves itself: no lookup leaves the process. */
const names: Record<string, string[]> = {
  'internal.example.test': ['10.0.0.1'],
  'mixed.example.test': ['93.184.216.34', '127.0.0.1'],
};
const resolve = async (hostname: string) => names[hostname] ?? [];

const withImage = (url: string) =>
  canonicalRequest({
    messages: [{ role: 'user', parts: [{ type: 'image', mediaType: 'image/png', url }] }],
  });

describe('an image URL the gateway fetches for an upstream', () => {
  it.each([
    'http://127.0.0.1:1/cat.png',
    'http://[::1]:1/cat.png',
    'http://[::ffff:7f00:1]:1/cat.png',
    'http://[::ffff:127.0.0.1]:1/cat.png',
    'http://169.254.169.254/latest/meta-data',
    'http://internal.example.test/cat.png',
    'http://mixed.example.test/cat.png',
    'http://unresolved.example.test/cat.png',
  ])('is refused before any connection when its host is not public: %s', async (url) => {
    await expect(
      inlineImageUrls(
        withImage(url),
        { allowPrivateHosts: false, resolve },
        new AbortController().signal,
      ),
    ).rejects.toThrow(/could not be used: its host is not a public address\. Send it inline/);
  });

  it('is left alone when the request has none', async () => {
    const request = canonicalRequest();
    expect(
      await inlineImageUrls(
        request,
        { allowPrivateHosts: false, resolve },
        new AbortController().signal,
      ),
    ).toBe(request);
  });
});
