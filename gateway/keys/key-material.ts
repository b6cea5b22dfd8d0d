/**
 * Making and digesting keys (masking them is shared/key-masking.ts). A key is `sk-` plus 40 random base62 characters; the
 * database keeps only `v1$` + HMAC-SHA-256(pepper, key), so a copy of the database cannot be
 * used to call the gateway, and the version prefix lets a later digest scheme coexist.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { KEY_PREFIX } from '../../contract/key-pattern';

export { KEY_PREFIX };

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const SECRET_LENGTH = 40;

export function generateKey(): string {
  // Rejection sampling keeps every character equally likely (256 is not a multiple of 62).
  let secret = '';
  while (secret.length < SECRET_LENGTH) {
    for (const byte of crypto.randomBytes(SECRET_LENGTH)) {
      if (byte < 248 && secret.length < SECRET_LENGTH) secret += BASE62[byte % 62];
    }
  }
  return KEY_PREFIX + secret;
}

export function generateKeyId(): string {
  return `key_${generateKey().slice(KEY_PREFIX.length, KEY_PREFIX.length + 16)}`;
}

export type KeyDigester = (key: string) => string;

export function createKeyDigester(pepper: string): KeyDigester {
  // Imported once: an HMAC keyed by a string imports the key again on every request.
  const secret = crypto.createSecretKey(Buffer.from(pepper, 'utf8'));
  return (key) => `v1$${crypto.createHmac('sha256', secret).update(key).digest('hex')}`;
}

/** Compares two digests in constant time, so a lookup's timing says nothing of the stored one. */
export function digestsEqual(left: string, right: string): boolean {
  const a = Buffer.from(left);
  const b = Buffer.from(right);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/**
 * The pepper: `GATEWAY_KEY_PEPPER` when set, else a random secret kept in `key-pepper` beside
 * the database (created on first use, readable only by its owner).
 */
export function loadPepper(databasePath: string, configured: string | undefined): string {
  if (configured) return configured;
  const file = path.join(path.dirname(databasePath), 'key-pepper');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const pepper = crypto.randomBytes(32).toString('base64url');
  try {
    fs.writeFileSync(file, `${pepper}\n`, { mode: 0o600, flag: 'wx' });
    return pepper;
  } catch (error) {
    // Another process (the command line, a second gateway) created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      return fs.readFileSync(file, 'utf8').trim();
    throw error;
  }
}
