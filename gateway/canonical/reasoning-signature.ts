/**
 * Reasoning signatures (Anthropic's `signature`, Gemini's `thoughtSignature`) and encrypted
 * reasoning (Anthropic's `redacted_thinking` data) are only good for the provider that made them.
 * The gateway hands them to clients sealed with that provider's id, `gw1:<providerId>:<original>`,
 * and opens them when they come back, so a later turn returns each one to its maker and to no
 * other provider. The seal is a label, not a secret: the maker still verifies its own signature.
 */

const PREFIX = 'gw1:';

/** `signature` as clients see it: labelled with the provider that made it. */
export function sealSignature(providerId: string, signature: string): string {
  return `${PREFIX}${providerId}:${signature}`;
}

/**
 * A signature a client handed back → its maker and the original, or null when it was not sealed
 * by this gateway (made elsewhere, or forged without a label): then it goes to no provider.
 * Provider ids hold no colon (providers-file.ts), so the first one after the prefix ends the id.
 */
export function openSignature(sealed: string): { providerId: string; signature: string } | null {
  if (!sealed.startsWith(PREFIX)) return null;
  const rest = sealed.slice(PREFIX.length);
  const colon = rest.indexOf(':');
  if (colon <= 0 || colon === rest.length - 1) return null;
  return { providerId: rest.slice(0, colon), signature: rest.slice(colon + 1) };
}

type ReasoningPart = {
  type: 'reasoning';
  text: string;
  signature?: string;
  encrypted?: string;
  providerId?: string;
};

/**
 * A reasoning part from what a client sent back: sealed signature and encrypted form opened,
 * `providerId` set from them. A signature that is not sealed (or sealed for another provider than
 * the encrypted form) is dropped: the text alone stays.
 */
export function reasoningPartFrom(
  text: string,
  sealedSignature: string | undefined,
  sealedEncrypted?: string,
): ReasoningPart {
  const signature = sealedSignature ? openSignature(sealedSignature) : null;
  const encrypted = sealedEncrypted ? openSignature(sealedEncrypted) : null;
  const providerId = signature?.providerId ?? encrypted?.providerId;
  const part: ReasoningPart = { type: 'reasoning', text };
  if (providerId === undefined) return part;
  part.providerId = providerId;
  if (signature && signature.providerId === providerId) part.signature = signature.signature;
  if (encrypted && encrypted.providerId === providerId) part.encrypted = encrypted.signature;
  return part;
}
