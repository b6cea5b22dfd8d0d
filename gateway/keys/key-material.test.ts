import fs from 'node:fs';
import path from 'node:path';
import { tempFolder } from '../testing-support';
import { createKeyDigester, digestsEqual, generateKey, generateKeyId, loadPepper, maskKey } from './key-material';

describe('keys', () => {
  it('are sk- plus 40 base62 characters, all different', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateKey()));
    expect(keys.size).toBe(200);
    for (const key of keys) expect(key).toMatch(/^sk-[A-Za-z0-9]{40}$/);
    expect(generateKeyId()).toMatch(/^key_[A-Za-z0-9]{16}$/);
  });

  it('are masked as the prefix, four characters, an ellipsis and the last four', () => {
    const key = generateKey();
    const masked = maskKey(key);
    expect(masked).toBe(`${key.slice(0, 7)}…${key.slice(-4)}`);
    expect(masked.startsWith('sk-')).toBe(true);
    expect(masked).not.toContain(key.slice(7, -4));
    expect(masked.length).toBe(12);
  });

  it('mask short or malformed input harder, never echoing it', () => {
    expect(maskKey('sk-short')).toBe('sk-…');
    expect(maskKey('pk-abcdefghijklmnopqrstuvwxyz')).toBe('sk-…');
    expect(maskKey('')).toBe('sk-…');
  });

  it('are stored as a versioned, peppered digest compared in constant time', () => {
    const key = generateKey();
    const digest = createKeyDigester('pepper-one-is-long-enough')(key);
    expect(digest).toMatch(/^v1\$[0-9a-f]{64}$/);
    expect(digest).not.toContain(key.slice(3));
    expect(createKeyDigester('pepper-one-is-long-enough')(key)).toBe(digest);
    expect(createKeyDigester('pepper-two-is-long-enough')(key)).not.toBe(digest);
    expect(digestsEqual(digest, digest)).toBe(true);
    expect(digestsEqual(digest, createKeyDigester('pepper-one-is-long-enough')(generateKey()))).toBe(false);
    expect(digestsEqual(digest, 'v1$short')).toBe(false);
  });
});

describe('loadPepper', () => {
  it('uses the configured pepper, else creates one beside the database, readable by its owner only', () => {
    const folder = tempFolder();
    const database = path.join(folder, 'gateway.db');
    expect(loadPepper(database, 'configured-pepper-value')).toBe('configured-pepper-value');
    const created = loadPepper(database, undefined);
    expect(created.length).toBeGreaterThanOrEqual(32);
    expect(loadPepper(database, undefined)).toBe(created);
    expect(fs.statSync(path.join(folder, 'key-pepper')).mode & 0o777).toBe(0o600);
    fs.rmSync(folder, { recursive: true, force: true });
  });
});
