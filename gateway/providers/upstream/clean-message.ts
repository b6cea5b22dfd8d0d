/**
 * An upstream's error message as a client may see it: no key (ours or any key-shaped text, whole
 * or partly masked), no internal address, no server file path, bounded in length. Upstreams echo
 * keys ("Incorrect API key provided: sk-…", or masked as `sk-proj-****…yzAB`), their own URLs and
 * their tracebacks' paths; none of it may reach a client or a log.
 */

/** Key characters, and the `*` and `…`/`...` a vendor masks part of a key with. */
const KEY_BODY = String.raw`[A-Za-z0-9_*-]+(?:(?:\.{2,}|…)[A-Za-z0-9_*-]+)*`;
const KEY_SHAPED = new RegExp(
  [
    // Prefixed keys (`sk-`, `sk-proj-`, `sk-ant-api03-`, `sk-or-v1-`, `pk-`, `rk-`), masked or not.
    String.raw`\b(?:sk|pk|rk)-${KEY_BODY}`,
    // Google API keys.
    String.raw`\bAIza${KEY_BODY}`,
    // Anything partly masked: key characters around a run of three or more `*`. The visible
    // characters of a masked key are still part of the key.
    String.raw`[A-Za-z0-9_-]*\*{3,}[A-Za-z0-9_-][A-Za-z0-9_*-]*`,
    String.raw`[A-Za-z0-9_-]+\*{3,}`,
    // Long random-looking tokens.
    String.raw`\b[A-Za-z0-9_-]{32,}\b`,
  ].join('|'),
  'g',
);
const URL_SHAPED = /\b(?:https?|wss?|file):\/\/[^\s"'<>)]+/g;
const IPV4 = /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g;

/** Directories a server's own files live under; an absolute path from one is not an API path. */
const FILESYSTEM_ROOTS =
  'srv|app|apps|home|root|usr|var|opt|etc|tmp|mnt|data|workspace|workspaces|code|src|lib|lib64|bin|sbin|proc|run|Users|Library|private|nix|gnu';
const PATH_SEGMENT = String.raw`[\w.@+~-]+`;
/**
 * Absolute file paths: a Unix path under a filesystem root, or any absolute path whose last part
 * is a file name with an extension (`/x/server.py`); and Windows paths (`C:\app\main.py`). An API
 * path such as `/v1/chat/completions` stays: it helps the client and tells nothing of the server.
 */
const FILE_PATH = new RegExp(
  [
    String.raw`(?<![\w.:/])/(?:${FILESYSTEM_ROOTS})(?:/${PATH_SEGMENT})+/?`,
    String.raw`(?<![\w.:/])(?:/${PATH_SEGMENT})+/[\w@+~-]*\.[A-Za-z][A-Za-z0-9]{0,5}\b`,
    String.raw`\b[A-Za-z]:\\(?:[^\\\s"'<>]+\\)*[^\\\s"'<>,;]*`,
  ].join('|'),
  'g',
);

/**
 * The shortest start of a key taken as the key: upstreams cut a key short as well as mask it
 * ("key up-7d3f0c2e…"), and a run this long of a random key does not occur by chance.
 */
const KEY_PREFIX_CHARS = 8;

export function cleanUpstreamMessage(text: string, secrets: string[] = []): string {
  let cleaned = text;
  for (const secret of secrets) cleaned = withoutSecret(cleaned, secret);
  // The patterns below run on a bounded text, so an upstream's megabyte of error message costs
  // no more than a short one (a long run of key characters is scanned once per pattern).
  cleaned = cleaned
    .slice(0, 4_000)
    .replace(URL_SHAPED, '[address]')
    .replace(KEY_SHAPED, '[redacted]')
    .replace(FILE_PATH, '[path]')
    .replace(IPV4, '[address]')
    .replace(/\s+/g, ' ')
    .trim();
  return cleaned.length > 500 ? `${cleaned.slice(0, 500)}…` : cleaned;
}

/** `text` with each occurrence of `secret`, or of its first `KEY_PREFIX_CHARS` characters on, redacted. */
function withoutSecret(text: string, secret: string): string {
  if (secret.length < 4) return text;
  const head = secret.slice(0, Math.min(KEY_PREFIX_CHARS, secret.length));
  let cleaned = '';
  let from = 0;
  for (let at = text.indexOf(head); at !== -1; at = text.indexOf(head, from)) {
    let end = at + head.length;
    while (end - at < secret.length && text[end] === secret[end - at]) end += 1;
    cleaned += `${text.slice(from, at)}[redacted]`;
    from = end;
  }
  return cleaned + text.slice(from);
}
