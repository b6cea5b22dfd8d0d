/**
 * How a key is shown and how free text is cleaned of keys: the errors, the logs and the key
 * administration all mask through here, below every part that needs it.
 */
import { KEY_PREFIX, keyLikePattern } from '../../contract/key-pattern';

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
