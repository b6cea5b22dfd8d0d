/**
 * What a key looks like, for every side that must find one in text not meant to hold a key (log
 * lines, error messages, bodies passed on). Defined once, here: the gateway masks with it, the
 * workbench's server too.
 */

/** Every gateway key starts with this; `sk-` plus 40 base62 characters is the whole key. */
export const KEY_PREFIX = 'sk-';

/**
 * Key-like text: `sk-` then at least 8 key characters. Wider than a gateway key on purpose: `-`
 * and `_` and any length from 8, so a vendor's key (`sk-proj-…`) or a key cut short is caught
 * too, while the bare prefix in a sentence (`'sk-…'`) is not.
 *
 * Global: use it with `replace` or `matchAll`; for `test`, copy it (`new RegExp(source)`), as a
 * shared global regex keeps its `lastIndex` between calls.
 */
export const keyLikePattern = /sk-[A-Za-z0-9_-]{8,}/g;
