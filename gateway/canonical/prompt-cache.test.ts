/** Which cache writes a request asks for, wherever its form lets the client mark them. */
import { canonicalRequest } from '../../testing/upstreams/canonical';
import { askedCacheWrites } from './prompt-cache';

describe('the cache writes a request asks for', () => {
  it('are none without a breakpoint', () => {
    expect(askedCacheWrites(canonicalRequest())).toBe('none');
  });

  it('are five-minute ones for a breakpoint without a ttl, on a part or the request', () => {
    const onPart = canonicalRequest({
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi', cacheControl: {} }] }],
    });
    expect(askedCacheWrites(onPart)).toBe('5m');
    expect(askedCacheWrites(canonicalRequest({ cacheControl: { ttl: '5m' } }))).toBe('5m');
  });

  it('are one-hour ones where any breakpoint asks for an hour', () => {
    const request = canonicalRequest({
      system: 'a\n\nb',
      systemBlocks: [
        { text: 'a', cacheControl: { ttl: '1h' } },
        { text: 'b', cacheControl: {} },
      ],
    });
    expect(askedCacheWrites(request)).toBe('1h');
  });

  it('are read from a Messages body sent as it came: tools, system, blocks in tool results', () => {
    const inbound = (body: Record<string, unknown>) =>
      canonicalRequest({ inbound: { form: 'messages', body, unmappedFields: [] } });
    const tool = {
      name: 'read',
      input_schema: {},
      cache_control: { type: 'ephemeral', ttl: '1h' },
    };
    expect(askedCacheWrites(inbound({ tools: [tool] }))).toBe('1h');
    const nested = {
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_1',
              content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }],
            },
          ],
        },
      ],
    };
    expect(askedCacheWrites(inbound(nested))).toBe('5m');
    expect(askedCacheWrites(inbound({ messages: [{ role: 'user', content: 'hi' }] }))).toBe('none');
  });
});
