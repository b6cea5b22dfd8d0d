/**
 * The per-key concurrency limit: requests one key may have in the gateway at once, from before
 * its body is read to its last byte, counting inference and token counting alike. One tenant's
 * flood of large bodies is then bounded by its own slots, not by everyone's memory and CPU.
 */
import { GatewayError } from '../errors';

export type SlotRelease = () => void;

/** A body over this many bytes is large: reading and counting it is real work. */
export const LARGE_BODY_BYTES = 1024 * 1024;
export const LARGE_BODIES_PER_KEY = 2;

export class KeySlots {
  private readonly running = new Map<string, number>();

  constructor(private readonly maxPerKey: number) {}

  /** Takes a slot or throws the 429; the release is safe to call more than once. */
  acquire(keyId: string): SlotRelease {
    const running = this.running.get(keyId) ?? 0;
    if (running >= this.maxPerKey) {
      throw new GatewayError(
        429,
        'rate_limited',
        'admission',
        `This key already has ${running} requests running, the most this gateway allows at once. Wait for one to finish.`,
        1,
      );
    }
    this.running.set(keyId, running + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.running.get(keyId) ?? 1) - 1;
      if (left > 0) this.running.set(keyId, left);
      else this.running.delete(keyId);
    };
  }

  private readonly large = new Map<string, number>();

  /**
   * A slot for the CPU-heavy part (parse, convert, count) of a large body: at most
   * `LARGE_BODIES_PER_KEY` per key at once, so one key flooding large bodies holds the event loop
   * for a bounded share; other keys are not affected. Throws the 429 past that.
   */
  acquireLarge(keyId: string): SlotRelease {
    const running = this.large.get(keyId) ?? 0;
    if (running >= LARGE_BODIES_PER_KEY) {
      throw new GatewayError(
        429,
        'rate_limited',
        'admission',
        `This key already has ${running} large request bodies being read, the most this gateway reads at once per key. Wait for one to start answering.`,
        1,
      );
    }
    this.large.set(keyId, running + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.large.get(keyId) ?? 1) - 1;
      if (left > 0) this.large.set(keyId, left);
      else this.large.delete(keyId);
    };
  }

  runningFor(keyId: string): number {
    return this.running.get(keyId) ?? 0;
  }
}
