/**
 * Making, digesting and masking keys. A key is `sk-` plus 40 random base62 characters; the
 * database keeps only `v1$` + HMAC-SHA-256(pepper, key), so a copy of the database cannot be
 * used to call the gateway, and the version prefix lets a later digest scheme coexist.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { KEY_PREFIX, keyLikePattern } from '../../contract/key-pattern';

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
 * The displayable form of a key: the prefix, four characters and the last four, middle elided
 * (`sk-Ab3d…x9Yz`). Short or malformed input is masked harder, never echoed.
 */
export function maskKey(key: string): string {
  if (!key.startsWith(KEY_PREFIX) || key.length < KEY_PREFIX.length + 16) return `${KEY_PREFIX}…`;
  return `${key.slice(0, KEY_PREFIX.length + 4)}…${key.slice(-4)}`;
}

const containsKeyLike = new RegExp(keyLikePattern.source);
/** A run of URL-safe characters holding at least one percent escape. */
const percentEncodedRun = /[\w.~%-]*%[0-9A-Fa-f]{2}[\w.~%-]*/g;
/** Decodes only ASCII escapes (all a key is made of); never throws on a malformed one. */
const decodeAscii = (text: string) =>
  text.replace(/%([0-7][0-9A-Fa-f])/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
const percentEncode = (character: string) =>
  `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;

/**
 * `text` with every key-like part masked as `maskKey` does, also where percent-encoded (a key in
 * a URL: `%73k-…`). The one masking of free text: error messages and log lines go through it.
 * The rest of the text is left exactly as is, so JSON stays valid JSON; masking twice changes
 * nothing more.
 */
export function maskKeys(text: string): string {
  const masked = text.replace(keyLikePattern, (found) => maskKey(found));
  if (!masked.includes('%')) return masked;
  return masked.replace(percentEncodedRun, (run) => {
    const decoded = decodeAscii(run);
    if (!containsKeyLike.test(decoded)) return run;
    // Written back encoded, so what was URL-safe (and JSON-safe) stays so.
    return decoded
      .replace(keyLikePattern, (found) => maskKey(found))
      .replace(/[^\w.~%…-]/g, percentEncode);
  });
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
