/**
 * What the gateway keeps of the reasoning that preceded each tool call it passed on, so a client
 * that sends the turn back with the reasoning's text only, or none (OpenCode's `reasoning_content`,
 * the AI SDK's OpenAI-compatible provider), still gets the signed block to the provider that made
 * it: Anthropic refuses a tool-call turn without it when thinking is on. Kept per key, bounded in
 * bytes (in all and per key) and in time, in this process only: a miss (another instance, a
 * restart, an old call) leaves the turn as the client sent it, and the provider's converter then
 * turns thinking off for that turn and reports it.
 */
import type { CanonicalEvent, CanonicalPart, CanonicalRequest } from '../canonical/model';
import { openReasoning, reasoningPartFrom } from '../canonical/reasoning-signature';

type ReasoningPart = Extract<CanonicalPart, { type: 'reasoning' }>;

type Entry = { keyId: string; callId: string; blocks: ReasoningPart[]; bytes: number; at: number };

export type ReasoningMemoryLimits = {
  /** Bytes kept in all (the blocks' text and signatures). */
  maxBytes: number;
  /** Bytes kept for one key, so one busy key cannot push every other key's turns out. */
  maxBytesPerKey: number;
  /** How long a call's reasoning is kept after it was made. */
  ttlMs: number;
};

export const DEFAULT_REASONING_MEMORY: ReasoningMemoryLimits = {
  maxBytes: 64 * 1024 * 1024,
  maxBytesPerKey: 4 * 1024 * 1024,
  ttlMs: 60 * 60 * 1000,
};

const sizeOf = (blocks: ReasoningPart[]) =>
  blocks.reduce(
    (sum, block) =>
      sum + block.text.length + (block.signature?.length ?? 0) + (block.encrypted?.length ?? 0),
    0,
  );

export class ReasoningMemory {
  /** Every entry, oldest first (a Map keeps insertion order). */
  private readonly entries = new Map<string, Entry>();
  private readonly keyBytes = new Map<string, number>();
  /** Each key's entries, oldest first, so a key past its share drops its own oldest at once. */
  private readonly byKey = new Map<string, Map<string, Entry>>();
  private bytes = 0;

  constructor(
    private readonly limits: ReasoningMemoryLimits = DEFAULT_REASONING_MEMORY,
    private readonly now: () => number = Date.now,
  ) {}

  /** Bytes held now, for tests and metrics. */
  get size(): number {
    return this.bytes;
  }

  /**
   * Follows an answer's events: each block of reasoning that closed with what its maker needs
   * (a signature or an encrypted form) is kept for the tool calls that follow it.
   */
  recorder(keyId: string): (event: CanonicalEvent) => void {
    let pending: ReasoningPart[] = [];
    let text = '';
    return (event) => {
      if (event.type === 'reasoning-delta') {
        text += event.text;
        if (event.signature === undefined && event.encrypted === undefined) return;
        const part = reasoningPartFrom(text, event.signature, event.encrypted);
        text = '';
        if (part.providerId !== undefined) pending.push(part);
      } else if (event.type === 'tool-call') {
        if (pending.length > 0) this.remember(keyId, event.id, pending);
        // Interleaved thinking: the next call's reasoning is what comes after this call.
        pending = [];
      }
    };
  }

  /**
   * The request with each assistant turn's tool calls given back the reasoning that preceded
   * them, where the client sent none a provider can take; and with reasoning sealed for another
   * key stripped to its text.
   */
  restore(keyId: string, request: CanonicalRequest): CanonicalRequest {
    let changed = false;
    const messages = request.messages.map((message) => {
      if (message.role !== 'assistant') return message;
      const own = message.parts.map((part) => {
        if (part.type !== 'reasoning' || part.keyId === undefined || part.keyId === keyId)
          return part;
        changed = true;
        return { type: 'reasoning' as const, text: part.text };
      });
      const signed = own.some((part) => part.type === 'reasoning' && part.providerId !== undefined);
      const calls = own.filter((part) => part.type === 'tool_call');
      if (signed || calls.length === 0)
        return own === message.parts ? message : { ...message, parts: own };
      // The text-only reasoning the client sent is the restored blocks' text: not sent twice.
      const parts: CanonicalPart[] = [];
      let restored = false;
      for (const part of own) {
        if (part.type === 'reasoning') continue;
        const blocks = part.type === 'tool_call' ? this.recall(keyId, part.id) : null;
        // The first call's reasoning opened the turn, before any text: the vendor wants it first.
        if (blocks) parts.splice(restored ? parts.length : 0, 0, ...blocks);
        restored ||= blocks !== null;
        parts.push(part);
      }
      if (!restored) return own === message.parts ? message : { ...message, parts: own };
      changed = true;
      return { ...message, parts };
    });
    const inbound = withoutOthersReasoning(request.inbound, keyId);
    if (inbound !== request.inbound) return { ...request, messages, inbound };
    return changed ? { ...request, messages } : request;
  }

  private remember(keyId: string, callId: string, blocks: ReasoningPart[]): void {
    const bytes = sizeOf(blocks);
    if (bytes > this.limits.maxBytesPerKey) return;
    const id = `${keyId}\u0000${callId}`;
    this.forget(id);
    const now = this.now();
    for (const [oldId, entry] of this.entries) {
      if (now - entry.at <= this.limits.ttlMs) break;
      this.forget(oldId);
    }
    const entry = { keyId, callId, blocks, bytes, at: now };
    this.entries.set(id, entry);
    const own = this.byKey.get(keyId) ?? new Map<string, Entry>();
    own.set(id, entry);
    this.byKey.set(keyId, own);
    this.bytes += bytes;
    this.keyBytes.set(keyId, (this.keyBytes.get(keyId) ?? 0) + bytes);
    // Oldest first: past the key's share, that key's oldest go; past the whole, anyone's.
    for (const oldId of this.byKey.get(keyId)?.keys() ?? []) {
      if ((this.keyBytes.get(keyId) ?? 0) <= this.limits.maxBytesPerKey) break;
      this.forget(oldId);
    }
    for (const oldId of this.entries.keys()) {
      if (this.bytes <= this.limits.maxBytes) break;
      this.forget(oldId);
    }
  }

  private recall(keyId: string, callId: string): ReasoningPart[] | null {
    const id = `${keyId}\u0000${callId}`;
    const entry = this.entries.get(id);
    if (!entry) return null;
    if (this.now() - entry.at > this.limits.ttlMs) {
      this.forget(id);
      return null;
    }
    return entry.blocks;
  }

  private forget(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.bytes -= entry.bytes;
    const own = this.byKey.get(entry.keyId);
    own?.delete(id);
    if (own?.size === 0) this.byKey.delete(entry.keyId);
    const left = (this.keyBytes.get(entry.keyId) ?? 0) - entry.bytes;
    if (left > 0) this.keyBytes.set(entry.keyId, left);
    else this.keyBytes.delete(entry.keyId);
  }
}

/**
 * A Responses body goes to an OpenAI Responses upstream as sent: its reasoning items sealed for
 * another key are taken out there too, as `restore` strips them from the canonical turns.
 */
function withoutOthersReasoning(
  inbound: CanonicalRequest['inbound'],
  keyId: string,
): CanonicalRequest['inbound'] {
  const input = inbound?.form === 'responses' ? inbound.body.input : undefined;
  if (!Array.isArray(input)) return inbound;
  const kept = input.filter((item: unknown) => {
    const record = item as { type?: unknown; encrypted_content?: unknown } | null;
    if (record?.type !== 'reasoning' || typeof record.encrypted_content !== 'string') return true;
    const sealedFor = openReasoning(record.encrypted_content)?.keyId;
    return sealedFor === undefined || sealedFor === keyId;
  });
  return kept.length === input.length
    ? inbound
    : { ...inbound!, body: { ...inbound!.body, input: kept } };
}
