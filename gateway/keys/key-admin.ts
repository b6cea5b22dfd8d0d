/**
 * Key administration: create, list, show, disable, enable, revoke, set limits and rotate. Used by
 * the command line and by the embedded start-up's demo keys; every check that keeps the key tree
 * sane lives here, so no caller can skip it.
 */
import type { KeyKind } from '../../contract/gateway';
import { nanosToUsd, usdToNanos } from '../billing/money';
import type { GatewayStore, KeyRow } from '../store/store';
import { generateKey, generateKeyId, maskKey, type KeyDigester } from './key-material';
import { isExpired, remainingNanos } from './key-state';

export class KeyAdminError extends Error {}

export type CreateKeyInput = {
  kind: KeyKind;
  parentId?: string;
  limitUsd?: number;
  graceUsd?: number;
  expiresAt?: number | null;
  name?: string;
};

/** What `keys create` and `keys rotate` hand out: the only place a full key ever appears. */
export type IssuedKey = { id: string; key: string; kind: KeyKind; parent_id: string | null };

/** A key as the command line shows it: no secret, only the masked form. */
export type KeySummary = {
  id: string;
  kind: KeyKind;
  parent_id: string | null;
  name: string;
  key: string;
  state: 'active' | 'expired' | 'disabled' | 'revoked' | 'depleted';
  limit_usd: number | null;
  grace_usd: number | null;
  consumption_usd: number | null;
  remaining_usd: number | null;
  expires_at: number | null;
  disabled: boolean;
  created_at: number;
};

/** Default spending limit for a new account or allocated child key when none is given. */
export const DEFAULT_LIMIT_USD = 10;

const nowSeconds = () => Math.floor(Date.now() / 1000);

export class KeyAdmin {
  constructor(
    private readonly store: GatewayStore,
    private readonly digest: KeyDigester,
  ) {}

  create(input: CreateKeyInput): IssuedKey {
    const parent = input.parentId === undefined ? undefined : this.require(input.parentId);
    if (input.kind === 'account' && parent) {
      throw new KeyAdminError('An account key has no parent: leave out --parent.');
    }
    if (input.kind !== 'account') {
      if (!parent) throw new KeyAdminError(`A ${input.kind} key needs --parent ID (an account key).`);
      if (parent.kind !== 'account') {
        throw new KeyAdminError(`The parent ${parent.id} is a ${parent.kind} key; a parent must be an account key.`);
      }
      if (parent.revokedAt !== null) throw new KeyAdminError(`The parent ${parent.id} is revoked.`);
    }
    if (input.kind === 'shared_child' && (input.limitUsd !== undefined || input.graceUsd !== undefined)) {
      throw new KeyAdminError('A shared_child key spends its parent\'s balance: it takes no --limit-usd or --grace-usd.');
    }
    validateMoney('--limit-usd', input.limitUsd);
    validateMoney('--grace-usd', input.graceUsd);
    validateExpiry(input.expiresAt);

    const key = generateKey();
    const row: KeyRow = {
      id: generateKeyId(),
      kind: input.kind,
      parentId: parent?.id ?? null,
      name: input.name ?? `${input.kind.replace('_', ' ')} key`,
      digest: this.digest(key),
      masked: maskKey(key),
      limitNanos: input.kind === 'shared_child' ? 0 : usdToNanos(input.limitUsd ?? DEFAULT_LIMIT_USD),
      graceNanos: input.kind === 'shared_child' ? 0 : usdToNanos(input.graceUsd ?? 0),
      consumptionNanos: 0,
      expiresAt: input.expiresAt ?? null,
      disabled: false,
      revokedAt: null,
      createdAt: nowSeconds(),
    };
    this.store.insertKey(row);
    return { id: row.id, key, kind: row.kind, parent_id: row.parentId };
  }

  list(): KeySummary[] {
    return this.store.listKeys().map((row) => this.summarize(row));
  }

  show(id: string): KeySummary {
    return this.summarize(this.require(id));
  }

  setDisabled(id: string, disabled: boolean): KeySummary {
    this.requireLive(id);
    this.store.updateKey(id, { disabled });
    return this.show(id);
  }

  revoke(id: string): KeySummary {
    const row = this.require(id);
    if (row.revokedAt === null) this.store.updateKey(id, { revokedAt: nowSeconds() });
    return this.show(id);
  }

  set(id: string, change: { limitUsd?: number; graceUsd?: number; expiresAt?: number | null }): KeySummary {
    const row = this.requireLive(id);
    if (row.kind === 'shared_child' && (change.limitUsd !== undefined || change.graceUsd !== undefined)) {
      throw new KeyAdminError('A shared_child key spends its parent\'s balance: set the parent\'s limit instead.');
    }
    validateMoney('--limit-usd', change.limitUsd);
    validateMoney('--grace-usd', change.graceUsd);
    validateExpiry(change.expiresAt);
    this.store.updateKey(id, {
      limitNanos: change.limitUsd === undefined ? undefined : usdToNanos(change.limitUsd),
      graceNanos: change.graceUsd === undefined ? undefined : usdToNanos(change.graceUsd),
      expiresAt: change.expiresAt,
    });
    return this.show(id);
  }

  /**
   * A new secret for the same key: id, balance, limits and children stay; the old secret stops
   * working at once.
   */
  rotate(id: string): IssuedKey {
    const row = this.requireLive(id);
    const key = generateKey();
    this.store.updateKey(id, { digest: this.digest(key), masked: maskKey(key) });
    return { id: row.id, key, kind: row.kind, parent_id: row.parentId };
  }

  private require(id: string): KeyRow {
    const row = this.store.getKey(id);
    if (!row) throw new KeyAdminError(`No key with id ${id}. List the keys with: keys list`);
    return row;
  }

  private requireLive(id: string): KeyRow {
    const row = this.require(id);
    if (row.revokedAt !== null) throw new KeyAdminError(`The key ${id} is revoked; a revoked key cannot change.`);
    return row;
  }

  private summarize(row: KeyRow): KeySummary {
    const shared = row.kind === 'shared_child';
    const funding = shared ? this.store.getKey(row.parentId!) ?? row : row;
    const state: KeySummary['state'] =
      row.revokedAt !== null
        ? 'revoked'
        : isExpired(row, nowSeconds())
          ? 'expired'
          : row.disabled
            ? 'disabled'
            : remainingNanos(funding) === 0
              ? 'depleted'
              : 'active';
    return {
      id: row.id,
      kind: row.kind,
      parent_id: row.parentId,
      name: row.name,
      key: row.masked,
      state,
      limit_usd: shared ? null : nanosToUsd(row.limitNanos),
      grace_usd: shared ? null : nanosToUsd(row.graceNanos),
      consumption_usd: shared ? null : nanosToUsd(row.consumptionNanos),
      remaining_usd: nanosToUsd(remainingNanos(funding)),
      expires_at: row.expiresAt,
      disabled: row.disabled,
      created_at: row.createdAt,
    };
  }
}

function validateMoney(flag: string, value: number | undefined): void {
  if (value === undefined) return;
  if (!Number.isFinite(value) || value < 0 || value > 1_000_000) {
    throw new KeyAdminError(`${flag} must be a number of USD from 0 to 1000000.`);
  }
}

function validateExpiry(value: number | null | undefined): void {
  if (value === undefined || value === null) return;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new KeyAdminError('--expires-at must be a Unix time in whole seconds (or none).');
  }
}
