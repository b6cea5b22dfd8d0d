/**
 * The key profiles the BFF holds: name → full key. Only names, masked keys and identities ever
 * leave this module towards the browser; `keyOf` is for the gateway client alone. Profiles can
 * be added, moved to a new key or removed at run time (child keys created, rotated or revoked
 * from the workbench); the keys store (keys-store.ts) keeps them across restarts.
 */
import type { KeyKind } from '../../contract/gateway';
import type { Profile } from '../../contract/workbench-api';
import { ApiFailure } from '../core/errors';
import { maskKey, redactSecretText } from '../core/secrets';

export interface ProfileSources {
  /** From WORKBENCH_KEYS_FILE. */
  fromKeysFile?: Record<string, string>;
  /** GATEWAY_API_KEY, held as the profile `default`. */
  gatewayApiKey?: string | null;
  /** Embedded mode: the demo keys the start script created on first run. */
  demoKeys?: Record<string, string>;
}

/**
 * Merges the sources. A named profile from the keys file or GATEWAY_API_KEY wins over a demo
 * key of the same name, because those are what the person configured on purpose.
 */
export function buildProfiles(sources: ProfileSources): Record<string, string> {
  const profiles: Record<string, string> = { ...sources.demoKeys, ...sources.fromKeysFile };
  if (sources.gatewayApiKey) profiles.default = sources.gatewayApiKey;
  return profiles;
}

export class ProfileStore {
  private readonly keys: Map<string, string>;
  /** A key's kind never changes, so one successful balance call is enough. */
  private readonly identities = new Map<string, KeyKind>();
  /** The gateway's id of a key, once known (created here, or told by `GET /v1/key`). */
  private readonly keyIds = new Map<string, string>();
  /** The last inference trace id seen per profile, for the generation-record check. */
  private readonly traces = new Map<string, string>();
  /** Keys no profile holds any more (rotated, revoked): still masked wherever text leaves. */
  private readonly retired = new Set<string>();

  constructor(profiles: Record<string, string>) {
    this.keys = new Map(Object.entries(profiles));
  }

  names(): string[] {
    return [...this.keys.keys()];
  }

  has(name: string): boolean {
    return this.keys.has(name);
  }

  /**
   * Every full key held, and every key held before (rotated, revoked): used to mask them
   * wherever text leaves the BFF.
   */
  allKeys(): string[] {
    return [...new Set([...this.keys.values(), ...this.retired])];
  }

  /** Adds a profile, or points an existing one at a new key (usable at once everywhere). */
  set(name: string, key: string): void {
    const previous = this.keys.get(name);
    if (previous === key) return;
    if (previous !== undefined) {
      this.retired.add(previous);
      this.traces.delete(name);
    }
    this.retired.delete(key);
    this.keys.set(name, key);
  }

  /** Removes a profile; its key stays masked in whatever leaves the BFF. */
  remove(name: string): void {
    const key = this.keys.get(name);
    if (key === undefined) return;
    this.keys.delete(name);
    this.traces.delete(name);
    if (![...this.keys.values()].includes(key)) this.retired.add(key);
  }

  rememberKeyId(key: string, id: string): void {
    this.keyIds.set(key, id);
  }

  /** The gateway's id of a profile's key, when known. */
  keyIdOf(name: string): string | null {
    const key = this.keys.get(name);
    return key === undefined ? null : (this.keyIds.get(key) ?? null);
  }

  /** The full key of a profile, or a 404 naming the (masked) profile. */
  keyOf(name: string): string {
    const key = this.keys.get(name);
    if (key === undefined) {
      const known = this.names();
      throw new ApiFailure(404, {
        message: `Unknown key profile "${redactSecretText(name, this.allKeys()).slice(0, 80)}".`,
        stage: 'profile',
        field: 'profile',
        advice:
          known.length > 0
            ? `Pick one of: ${known.join(', ')}.`
            : 'No key profiles are configured: set WORKBENCH_KEYS_FILE or GATEWAY_API_KEY.',
      });
    }
    return key;
  }

  /** Remembers the kind of the profile's key (known from a balance call, or from creating it). */
  rememberIdentity(name: string, identity: KeyKind): void {
    const key = this.keys.get(name);
    if (key !== undefined) this.identities.set(key, identity);
  }

  rememberTrace(name: string, cfRay: string): void {
    this.traces.set(name, cfRay);
  }

  lastTrace(name: string): string | null {
    return this.traces.get(name) ?? null;
  }

  describe(name: string): Profile {
    const key = this.keyOf(name);
    return { name, masked_key: maskKey(key), identity: this.identities.get(key) ?? null };
  }

  /** The kind of a profile's key, once a balance call has told it; null before, or unknown. */
  identityOf(name: string | undefined): KeyKind | null {
    const key = name === undefined ? undefined : this.keys.get(name);
    return key === undefined ? null : (this.identities.get(key) ?? null);
  }

  hasIdentity(name: string): boolean {
    const key = this.keys.get(name);
    return key !== undefined && this.identities.has(key);
  }
}
