/**
 * The gateway's view of its keys: every key held in memory, found by digest without touching the
 * database on the hot path, and refreshed within a second when another process (the command
 * line, another instance) commits a change: the store tells it (SQLite's keys_version, PostgreSQL's
 * LISTEN/NOTIFY), and a periodic full reload is the safety net. A digest not in memory is looked
 * up once in the database, so a key created a moment ago works at once.
 */
import type { GatewayStore, KeyRow } from '../store/store';
import { digestsEqual, type KeyDigester } from './key-material';

export class KeyRegistry {
  private byDigest = new Map<string, KeyRow>();
  private byId = new Map<string, KeyRow>();
  private lastDataVersion = -1;
  private reloading: Promise<void> | null = null;
  private reloadAgain = false;

  private constructor(
    private readonly store: GatewayStore,
    private readonly digest: KeyDigester,
  ) {}

  static async open(store: GatewayStore, digest: KeyDigester): Promise<KeyRegistry> {
    const registry = new KeyRegistry(store, digest);
    await registry.reload();
    return registry;
  }

  /**
   * Reloads when another connection has committed since the last look, where the store can say
   * so synchronously (SQLite); the reload runs before this request's key is looked up.
   */
  async refreshIfChanged(): Promise<void> {
    if (this.store.keysVersion && this.store.keysVersion() !== this.lastDataVersion)
      await this.reload();
  }

  /** Reads every key again; concurrent calls share one read (and one more if asked during it). */
  reload(): Promise<void> {
    if (this.reloading) {
      this.reloadAgain = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      try {
        do {
          this.reloadAgain = false;
          await this.readAll();
        } while (this.reloadAgain);
      } finally {
        this.reloading = null;
      }
    })();
    return this.reloading;
  }

  private async readAll(): Promise<void> {
    if (this.store.keysVersion) this.lastDataVersion = this.store.keysVersion(true);
    // Rows are updated in place, so a request holding a key row sees what changed since.
    const keys = (await this.store.listKeys()).map((fresh) => {
      const known = this.byId.get(fresh.id);
      return known ? Object.assign(known, fresh) : fresh;
    });
    this.byDigest = new Map(keys.map((key) => [key.digest, key]));
    this.byId = new Map(keys.map((key) => [key.id, key]));
  }

  /**
   * The live (not revoked) key for a presented secret, or undefined. It first checks whether
   * another process committed (one cheap `keys_version` read), so a key the command line rotated,
   * revoked or disabled is refused by every request that starts after the command exits.
   */
  async findByKey(presented: string): Promise<KeyRow | undefined> {
    await this.refreshIfChanged();
    const digest = this.digest(presented);
    let key = this.byDigest.get(digest);
    if (!key) {
      key = await this.store.findKeyByDigest(digest);
      if (key) {
        this.remember(key);
        // Its parent may be as new as it is: fetch it too, so `get` finds it in memory.
        if (key.parentId !== null && !this.byId.has(key.parentId)) {
          const parent = await this.store.getKey(key.parentId);
          if (parent) this.remember(parent);
        }
      }
    }
    if (!key || !digestsEqual(key.digest, digest) || key.revokedAt !== null) return undefined;
    return key;
  }

  /** A key held in memory (every key the store had at the last reload, and any found since). */
  get(id: string | null): KeyRow | undefined {
    return id === null ? undefined : this.byId.get(id);
  }

  /** Every key held in memory. */
  all(): IterableIterator<KeyRow> {
    return this.byId.values();
  }

  /** The key whose money a request spends: a shared child spends its parent's. */
  fundingKeyOf(key: KeyRow): KeyRow {
    return key.kind === 'shared_child' ? (this.get(key.parentId) ?? key) : key;
  }

  private remember(key: KeyRow): void {
    this.byDigest.set(key.digest, key);
    this.byId.set(key.id, key);
  }
}
