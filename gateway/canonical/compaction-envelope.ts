/**
 * The gateway's compaction envelope. When a model that cannot compact natively summarizes a
 * conversation for a Responses `compaction` item, the summary travels to the client as the item's
 * `encrypted_content`, sealed `gwc1:` + base64url of `{"summary": …}`, and is opened again when the
 * item comes back, so the model sees the summary as context. Like the reasoning seal
 * (reasoning-signature.ts) it is a label, not a secret: the summary is the client's own text.
 */

const PREFIX = 'gwc1:';

/** What a `compaction` item's `encrypted_content` is to the gateway. */
export type OpenedCompaction =
  | { kind: 'gateway'; summary: string }
  /** Not the gateway's (OpenAI's own): only an upstream of the Responses form can read it. */
  | { kind: 'foreign' }
  /** Claims to be the gateway's but does not open: changed or cut on the way. */
  | { kind: 'broken' };

/** `summary` as a `compaction` item's `encrypted_content`. */
export function sealCompaction(summary: string): string {
  return `${PREFIX}${Buffer.from(JSON.stringify({ summary }), 'utf8').toString('base64url')}`;
}

export function openCompaction(content: string): OpenedCompaction {
  if (!content.startsWith(PREFIX)) return { kind: 'foreign' };
  const encoded = content.slice(PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(encoded)) return { kind: 'broken' };
  try {
    const parsed: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    const summary = (parsed as { summary?: unknown } | null)?.summary;
    return typeof summary === 'string' ? { kind: 'gateway', summary } : { kind: 'broken' };
  } catch {
    return { kind: 'broken' };
  }
}

/** What the model sees for an opened envelope: the summary, said to be one. */
export function compactionContext(summary: string): string {
  return `The earlier part of this conversation was compacted. Its summary, written when it was compacted:\n\n${summary}`;
}
