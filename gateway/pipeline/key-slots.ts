/**
 * The per-key concurrency limit: requests one key may have in the gateway at once, from before
 * its body is read to its last byte, counting inference and token counting alike. One tenant's
 * flood of large bodies is then bounded by its own slots, not by everyone's memory and CPU.
 */
import { GatewayError } from '../errors';

export type SlotRelease = () => void;

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

  runningFor(keyId: string): number {
    return this.running.get(keyId) ?? 0;
  }
}
