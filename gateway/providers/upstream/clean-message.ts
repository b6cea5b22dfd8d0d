/**
 * An upstream's error message as a client may see it: no key (ours or any key-shaped text), no
 * internal address, bounded in length. Upstreams echo keys ("Incorrect API key provided: sk-…")
 * and their own URLs; neither may reach a client or a log.
 */
const KEY_SHAPED =
  /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{8,}|\bAIza[0-9A-Za-z_-]{20,}|\b[A-Za-z0-9_-]{32,}\b/g;
const URL_SHAPED = /\b(?:https?|wss?):\/\/[^\s"'<>)]+/g;
const IPV4 = /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g;

export function cleanUpstreamMessage(text: string, secrets: string[] = []): string {
  let cleaned = text;
  for (const secret of secrets) {
    if (secret.length >= 4) cleaned = cleaned.split(secret).join('[redacted]');
  }
  cleaned = cleaned
    .replace(KEY_SHAPED, '[redacted]')
    .replace(URL_SHAPED, '[address]')
    .replace(IPV4, '[address]')
    .replace(/\s+/g, ' ')
    .trim();
  return cleaned.length > 500 ? `${cleaned.slice(0, 500)}…` : cleaned;
}
