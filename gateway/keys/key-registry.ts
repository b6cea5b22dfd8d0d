/**
 * The gateway's view of its keys: every key held in memory, found by digest without touching the
 * database on the hot path, and refreshed within a second when another process (the command
 * line) commits a change. A digest not in memory is looked up once in the database, so a key
 * created a moment ago works at once.
 */
import type { GatewayStore, KeyRow } from '../store/store';
import { digestsEqual, type KeyDigester } from './key-material';

export class KeyRegistry {
  private byDigest = new Map<string, KeyRow>();
  private byId = new Map<string, KeyRow>();
  private lastDataVersion = -1;

  constructor(
    private readonly store: GatewayStore,
    private readonly digest: KeyDigester,
  ) {
    this.reload();
  }

  /** Reloads from the database when another connection has committed since the last look. */
  refreshIfChanged(): void {
    if (this.store.dataVersion() !== this.lastDataVersion) this.reload();
  }

  reload(): void {
    this.lastDataVersion = this.store.dataVersion();
    // Rows are updated in place, so a request holding a key row sees what changed since.
    const keys = this.store.listKeys().map((fresh) => {
      const known = this.byId.get(fresh.id);
      return known ? Object.assign(known, fresh) : fresh;
    });
    this.byDigest = new Map(keys.map((key) => [key.digest, key]));
    this.byId = new Map(keys.map((key) => [key.id, key]));
  }

  /**
   * The live (not revoked) key for a presented secret, or undefined. It first checks whether
   * another process committed (one cheap `data_version` read), so a key the command line rotated,
   * revoked or disabled is refused by every request that starts after the command exits.
   */
  findByKey(presented: string): KeyRow | undefined {
    this.refreshIfChanged();
    const digest = this.digest(presented);
    let key = this.byDigest.get(digest);
    if (!key) {
      key = this.store.findKeyByDigest(digest);
      if (key) this.remember(key);
    }
    if (!key || !digestsEqual(key.digest, digest) || key.revokedAt !== null) return undefined;
    return key;
  }

  get(id: string | null): KeyRow | undefined {
    if (id === null) return undefined;
    let key = this.byId.get(id);
    if (!key) {
      // A parent created a moment ago (before the next refresh) is looked up once, as findByKey does.
      key = this.store.getKey(id);
      if (key) this.remember(key);
    }
    return key;
  }

  /** The key whose money a request spends: a shared child spends its parent's. */
  fundingKeyOf(key: KeyRow): KeyRow {
    return key.kind === 'shared_child' ? (this.get(key.parentId) ?? key) : key;
  }

  /** Applies consumption that settlement moved into the database, without re-reading it. */
  addConsumption(moved: Map<string, number>): void {
    for (const [id, nanos] of moved) {
      const key = this.byId.get(id);
      if (key) key.consumptionNanos += nanos;
    }
  }

  private remember(key: KeyRow): void {
    this.byDigest.set(key.digest, key);
    this.byId.set(key.id, key);
  }
}
