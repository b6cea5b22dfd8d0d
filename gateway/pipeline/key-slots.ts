/**
 * The concurrency limits: requests one key, and one account with all its child keys, may have in
 * the gateway at once, from before the body is read to its last byte, counting inference and
 * token counting alike. One tenant's flood of large bodies is then bounded by its own slots, not
 * by everyone's memory and CPU.
 *
 * The tenant is the account: an account key and every child key it minted. Child keys are free
 * to create, so limits counted per key alone would let an account buy any share of the gateway by
 * minting children; counted per account, more keys buy nothing past the account's bound.
 */
import { GatewayError } from '../errors';

export type SlotRelease = () => void;

/** Who holds a slot: the key, and the account it belongs to (itself for an account key). */
export type SlotHolder = { id: string; parentId: string | null };

/** The account (tenant) of a key: its parent, or the key itself when it is an account key. */
export const accountOf = (key: SlotHolder): string => key.parentId ?? key.id;

/** A body over this many bytes is large: reading and counting it is real work. */
export const LARGE_BODY_BYTES = 1024 * 1024;
/** Large bodies one account (its key and child keys together) may have being read at once. */
export const LARGE_BODIES_PER_ACCOUNT = 2;
/**
 * An account's running requests, all its keys together, as a multiple of the per-key limit:
 * room for a few busy child keys (an account's apps) at their full per-key limit each, while a
 * hundred children still get no more than four keys' worth.
 */
export const ACCOUNT_CONCURRENCY_MULTIPLE = 4;

/** Counts per id, handing out releases that are safe to call more than once. */
class Counts {
  private readonly counts = new Map<string, number>();

  of(id: string): number {
    return this.counts.get(id) ?? 0;
  }

  take(id: string): SlotRelease {
    this.counts.set(id, this.of(id) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.of(id) - 1;
      if (left > 0) this.counts.set(id, left);
      else this.counts.delete(id);
    };
  }
}

const rateLimited = (message: string) =>
  new GatewayError({
    status: 429,
    type: 'rate_limited',
    stage: 'admission',
    message,
    retryAfterSeconds: 1,
  });

export class KeySlots {
  private readonly perKey = new Counts();
  private readonly perAccount = new Counts();
  private readonly largePerAccount = new Counts();
  private readonly maxPerAccount: number;

  constructor(private readonly maxPerKey: number) {
    this.maxPerAccount = maxPerKey * ACCOUNT_CONCURRENCY_MULTIPLE;
  }

  /** Takes a slot of the key and of its account, or throws the 429 naming which is full. */
  acquire(key: SlotHolder): SlotRelease {
    const account = accountOf(key);
    const running = this.perKey.of(key.id);
    // The key's own limit first: a lone key always meets it before its account's.
    if (running >= this.maxPerKey) {
      throw rateLimited(
        `This key already has ${running} requests running, the most this gateway allows at once. Wait for one to finish.`,
      );
    }
    const accountRunning = this.perAccount.of(account);
    if (accountRunning >= this.maxPerAccount) {
      throw rateLimited(
        `This key's account (the account key and its child keys together) already has ${accountRunning} requests running, the most this gateway allows one account at once. Wait for one to finish.`,
      );
    }
    const releaseKey = this.perKey.take(key.id);
    const releaseAccount = this.perAccount.take(account);
    return () => {
      releaseKey();
      releaseAccount();
    };
  }

  /**
   * A slot for the CPU-heavy part (parse, convert, count) of a large body: at most
   * `LARGE_BODIES_PER_ACCOUNT` per account at once, whichever of its keys send them, so one
   * tenant flooding large bodies holds the event loop for a bounded share; other accounts are not
   * affected. Throws the 429 past that.
   */
  acquireLarge(key: SlotHolder): SlotRelease {
    const account = accountOf(key);
    const running = this.largePerAccount.of(account);
    if (running >= LARGE_BODIES_PER_ACCOUNT) {
      throw rateLimited(
        `This key's account (the account key and its child keys together) already has ${running} large request bodies being read, the most this gateway reads at once per account. Wait for one to start answering.`,
      );
    }
    return this.largePerAccount.take(account);
  }

  runningFor(keyId: string): number {
    return this.perKey.of(keyId);
  }
}
