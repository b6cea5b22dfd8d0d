import type { CanonicalRequest } from './model';
import { IMAGE_TOKENS, countPromptTokens, countTokens, tokenize } from './token-count';
import { canonicalRequest } from '../../testing/upstreams/canonical';

const request = (overrides: Partial<CanonicalRequest> = {}) =>
  canonicalRequest({ messages: [], maxTokens: null, ...overrides });

describe('tokenize', () => {
  it('splits words with their leading space and punctuation marks', () => {
    expect(tokenize('Hello, world!')).toEqual(['Hello', ',', ' world', '!']);
    expect(tokenize("it's  done_now 42")).toEqual(["it's", '  done_now', ' 42']);
    expect(tokenize('')).toEqual([]);
    expect(tokenize('Grüße, 東京')).toEqual(['Grüße', ',', ' 東京']);
  });

  it('joins back to the same text', () => {
    for (const text of [
      '  leading and trailing  ',
      'a\nb\tc',
      'emoji 🙂 here.',
      '{"json": [1, 2]}',
      'x',
    ]) {
      expect(tokenize(text).join('')).toBe(text);
    }
  });

  it('counts tokens', () => {
    expect(countTokens('one two three.')).toBe(4);
    expect(countTokens('')).toBe(0);
  });
});

describe('countPromptTokens', () => {
  it('counts 4 per message plus its text, and the system prompt as a message', () => {
    const user = { role: 'user' as const, parts: [{ type: 'text' as const, text: 'Hello there' }] };
    expect(countPromptTokens(request({ messages: [user] }))).toBe(4 + 2);
    expect(countPromptTokens(request({ messages: [user], system: 'Be brief.' }))).toBe(
      4 + 3 + 4 + 2,
    );
  });

  it('counts an image at a fixed price, whatever its size', () => {
    const small = { type: 'image' as const, mediaType: 'image/png', data: 'AAAA' };
    const large = { type: 'image' as const, mediaType: 'image/png', data: 'A'.repeat(100_000) };
    expect(countPromptTokens(request({ messages: [{ role: 'user', parts: [small] }] }))).toBe(
      4 + IMAGE_TOKENS,
    );
    expect(countPromptTokens(request({ messages: [{ role: 'user', parts: [large] }] }))).toBe(
      4 + IMAGE_TOKENS,
    );
  });

  it('counts tool calls, tool results and tool definitions', () => {
    const messages = [
      {
        role: 'assistant' as const,
        parts: [{ type: 'tool_call' as const, id: 'c1', name: 'lookup', arguments: '{"q":"x"}' }],
      },
      {
        role: 'tool' as const,
        parts: [{ type: 'tool_result' as const, toolCallId: 'c1', content: 'found it' }],
      },
    ];
    const tools = [{ name: 'lookup', parameters: { type: 'object' } }];
    const base = countPromptTokens(request({ messages }));
    expect(base).toBe(4 + countTokens('lookup') + countTokens('{"q":"x"}') + 4 + 2);
    expect(countPromptTokens(request({ messages, tools }))).toBe(
      base + countTokens(JSON.stringify(tools[0])),
    );
  });
});

describe('counting with a limit', () => {
  it('stops at the limit, and counts exactly below it', () => {
    const text = ' word'.repeat(10_000);
    expect(countTokens(text)).toBe(10_000);
    expect(countTokens(text, 50)).toBe(50);
    expect(countTokens(' a b c', 50)).toBe(3);
    const long = request({ messages: [{ role: 'user', parts: [{ type: 'text', text }] }] });
    expect(countPromptTokens(long, 100)).toBeGreaterThanOrEqual(100);
    expect(countPromptTokens(long, 100)).toBeLessThan(200);
    expect(countPromptTokens(long, 1_000_000)).toBe(countPromptTokens(long));
  });
});
