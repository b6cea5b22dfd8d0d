/**
 * Reasoning signatures (Anthropic's `signature`, Gemini's `thoughtSignature`) and encrypted
 * reasoning (Anthropic's `redacted_thinking` data) are only good for the provider that made them.
 * The gateway hands them to clients sealed with that provider's id, `gw1:<providerId>:<original>`,
 * and opens them when they come back, so a later turn returns each one to its maker and to no
 * other provider. The seal is a label, not a secret: the maker still verifies its own signature.
 */

import type { CanonicalPart } from './model';

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

type ReasoningPart = Extract<CanonicalPart, { type: 'reasoning' }>;

/** A whole reasoning block as the gateway hands it out: its text and its sealed maker's data. */
export type SealedBlock = { text: string; signature?: string; encrypted?: string };

const ENVELOPE = 'gwr1:';

/**
 * A whole reasoning block in one opaque string, for the forms that carry only one: the Responses
 * form's `encrypted_content` and the Gemini form's `thoughtSignature`. Clients send those back
 * without the text (Codex, Gemini CLI), and Anthropic refuses a thinking block whose text is not
 * the one it signed, so the text travels inside. `keyId` binds it to the key it was made for.
 */
export function sealReasoning(block: SealedBlock, keyId: string | undefined): string {
  const fields = {
    t: block.text,
    ...(block.signature !== undefined && { s: block.signature }),
    ...(block.encrypted !== undefined && { e: block.encrypted }),
    ...(keyId !== undefined && { k: keyId }),
  };
  return ENVELOPE + Buffer.from(JSON.stringify(fields), 'utf8').toString('base64url');
}

/** An envelope's block and key, or null when `value` is not one this gateway sealed whole. */
export function openReasoning(value: string): (SealedBlock & { keyId?: string }) | null {
  if (!value.startsWith(ENVELOPE)) return null;
  try {
    const fields = JSON.parse(
      Buffer.from(value.slice(ENVELOPE.length), 'base64url').toString('utf8'),
    ) as Record<string, unknown>;
    if (typeof fields.t !== 'string') return null;
    const text = (name: string) => (typeof fields[name] === 'string' ? fields[name] : undefined);
    return {
      text: fields.t,
      ...(text('s') !== undefined && { signature: text('s') }),
      ...(text('e') !== undefined && { encrypted: text('e') }),
      ...(text('k') !== undefined && { keyId: text('k') }),
    };
  } catch {
    return null;
  }
}

/**
 * A reasoning part from what a client sent back: sealed signature and encrypted form opened,
 * `providerId` set from them. A signature that is not sealed (or sealed for another provider than
 * the encrypted form) is dropped: the text alone stays. A whole-block envelope in either place
 * (`sealReasoning`) gives back the block as it was made, its own text over the client's.
 */
export function reasoningPartFrom(
  text: string,
  sealedSignature: string | undefined,
  sealedEncrypted?: string,
): ReasoningPart {
  const envelope =
    openReasoning(sealedSignature ?? '') ?? openReasoning(sealedEncrypted ?? '') ?? null;
  if (envelope) {
    const part = reasoningPartFrom(envelope.text, envelope.signature, envelope.encrypted);
    return envelope.keyId === undefined ? part : { ...part, keyId: envelope.keyId };
  }
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
