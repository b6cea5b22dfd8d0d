import { describe, expect, it } from 'vitest';
import {
  containsSecret,
  maskKey,
  redactJson,
  redactSecretText,
  sanitizeUrlForLog,
} from './secrets';
import { fakeKey } from '../test-support/harness';

describe('masking', () => {
  it('keeps the prefix and a short tail, middle elided', () => {
    const key = fakeKey();
    expect(maskKey(key)).toBe(`sk-${key.slice(3, 7)}…${key.slice(-4)}`);
    expect(maskKey('sk-short')).toBe('sk-…');
    expect(maskKey('sk-abcdefghijklmn')).toBe('sk-…mn');
  });

  it('masks key-like text and the exact held keys, nothing else', () => {
    const key = fakeKey();
    const odd = 'held-secret-without-the-prefix';
    const text = `bad key ${key}; also ${odd}; prefix sk- alone and sk-short stay`;
    const masked = redactSecretText(text, [odd]);
    expect(masked).not.toContain(key);
    expect(masked).not.toContain(odd);
    expect(masked).toContain('prefix sk- alone and sk-short stay');
    expect(containsSecret(text)).toBe(true);
    expect(containsSecret(masked, [odd])).toBe(false);
  });

  it('masks inside JSON, field names included; with onlyKnownKeys leaves other text alone', () => {
    const key = fakeKey();
    const other = fakeKey();
    const body = { error: { message: `key ${key}`, [other]: [other] } };
    expect(JSON.stringify(redactJson(body))).not.toMatch(/sk-[A-Za-z0-9]{20}/);
    const answer = { content: `code sample: ${other}, held: ${key}` };
    expect(redactJson(answer, [key], { onlyKnownKeys: true })).toEqual({
      content: `code sample: ${other}, held: ${maskKey(key)}`,
    });
  });

  it('sanitizes ?key= and key-like values in logged URLs', () => {
    const key = fakeKey();
    expect(sanitizeUrlForLog(`/v1/balance?key=${key}&x=1`)).toBe('/v1/balance?key=[redacted]&x=1');
    expect(sanitizeUrlForLog(`/api/balance?profile=${key}`)).not.toContain(key);
    expect(sanitizeUrlForLog('/api/catalog')).toBe('/api/catalog');
    expect(sanitizeUrlForLog('/auth/oidc/callback?code=abc123&state=s&iss=x')).toBe(
      '/auth/oidc/callback?code=[redacted]&state=s&iss=x',
    );
  });
});
