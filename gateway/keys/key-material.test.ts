import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { tempFolder } from '../../testing/gateway-support';
import {
  createKeyDigester,
  digestsEqual,
  generateKey,
  generateKeyId,
  loadPepper,
} from './key-material';
import { maskKey, maskKeys } from '../shared/key-masking';

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

  it('are masked wherever they stand in free text, the rest left as it was', () => {
    const key = generateKey();
    const masked = maskKey(key);
    expect(maskKeys(`model '${key}' not found`)).toBe(`model '${masked}' not found`);
    expect(maskKeys(`/v1/${key}:generateContent?id=${key}&a=1`)).toBe(
      `/v1/${masked}:generateContent?id=${masked}&a=1`,
    );
    expect(maskKeys(`x${key}y`)).not.toContain(key.slice(7, -4));
    expect(maskKeys(`Bearer ${key}\n${key}`)).toBe(`Bearer ${masked}\n${masked}`);
    // Cut short, or a vendor's longer shape: still key-like.
    expect(maskKeys(`a ${key.slice(0, 20)} b`)).toBe(`a ${maskKey(key.slice(0, 20))} b`);
    expect(maskKeys('sk-proj-AbCdEfGh_1234567890')).toBe('sk-proj…7890');
    expect(maskKeys('sk-abcdefgh')).toBe('sk-…');
  });

  it('are masked also when percent-encoded, the text staying URL- and JSON-safe', () => {
    const key = generateKey();
    const masked = maskKey(key);
    expect(maskKeys(`/v1/%73%6B%2D${key.slice(3)}`)).toBe(`/v1/${masked}`);
    expect(maskKeys(`?q=a%3D${key}%22`)).toBe(`?q=a%3D${masked}%22`);
    expect(maskKeys(`?q=a%3D%73k-${key.slice(3)}%22`)).toBe(`?q=a%3D${masked}%22`);
    const line = JSON.stringify({ path: `/x/%73k-${key.slice(3)}%5C%22%0A`, msg: `${key}` });
    const maskedLine = maskKeys(line);
    expect(maskedLine).not.toContain(key.slice(3));
    expect(JSON.parse(maskedLine)).toEqual({ path: `/x/${masked}%5C%22%0A`, msg: masked });
  });

  it('leave text without a key exactly as it was, and masked text as it is', () => {
    const key = generateKey();
    for (const text of [
      "The API key does not start with 'sk-'. Send 'Authorization: Bearer sk-…'.",
      'sk-short, disk-, task-runner, 100%, %zz, %E2%80%A6, a%2Fb',
      '',
    ]) {
      expect(maskKeys(text)).toBe(text);
    }
    const once = maskKeys(`${key} %73k-${key.slice(3)}`);
    expect(maskKeys(once)).toBe(once);
  });

  it('are stored as a versioned, peppered digest compared in constant time', () => {
    const key = generateKey();
    const digest = createKeyDigester('pepper-one-is-long-enough')(key);
    expect(digest).toMatch(/^v1\$[0-9a-f]{64}$/);
    expect(digest).not.toContain(key.slice(3));
    expect(createKeyDigester('pepper-one-is-long-enough')(key)).toBe(digest);
    expect(createKeyDigester('pepper-two-is-long-enough')(key)).not.toBe(digest);
    expect(digestsEqual(digest, digest)).toBe(true);
    expect(
      digestsEqual(digest, createKeyDigester('pepper-one-is-long-enough')(generateKey())),
    ).toBe(false);
    expect(digestsEqual(digest, 'v1$short')).toBe(false);
  });

  it('keep the digest every stored key already has: HMAC-SHA256 of the key under the pepper', () => {
    // The digest as it was first made (an HMAC keyed by the pepper's text, non-ASCII included):
    // a different value would lock every stored key out.
    const digest = createKeyDigester('pepper-é-is-long-enough')(
      'sk-gw-Example000000000000000000000000000000',
    );
    expect(digest).toBe(
      `v1$${crypto.createHmac('sha256', 'pepper-é-is-long-enough').update('sk-gw-Example000000000000000000000000000000').digest('hex')}`,
    );
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
