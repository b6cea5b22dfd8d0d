/**
 * Key administration, the one home of the rules that keep the key tree and its money sane, for
 * the command line, the demo keys, `/v1/keys` and `/admin/v1/keys`: every change one transaction
 * with its audit row and ledger entries. The money rules: docs/keys-and-money.md.
 */
import type { KeyKind, LimitReset } from '../../contract/gateway';
import { entriesBeyond, MAX_ALLOWED_MODELS, patternProblem } from '../../contract/model-patterns';
import { formatNanosUsd } from '../../contract/usd-nanos';
import { nanosToUsd, usdToNanos, type Nanos } from '../shared/money';
import type {
  GatewayStore,
  KeyActor,
  KeyEventRow,
  KeyRow,
  KeyUpdate,
  LedgerEntry,
} from '../store/store';
import { maskKey } from '../shared/key-masking';
import { generateKey, generateKeyId, type KeyDigester } from './key-material';
import { keyStatus, remainingNanos, type KeyStateName } from './key-state';
import { periodDue, periodEnd, periodSpend, periodStart } from './budget-period';
import { calendarClock, type CalendarClock } from './calendar-clock';

export type { KeyActor };

/** An audited change, as a listener is told of it inside the change's transaction. */
export type KeyChangeNotice = {
  keyId: string;
  action: string;
  changes: Record<string, { old: unknown; new: unknown }>;
};
export type KeyChangeListener = (notice: KeyChangeNotice) => Promise<void>;

/** Fields a change can be refused for, named as the HTTP API spells them. */
export type KeyField =
  | 'kind'
  | 'parent_id'
  | 'name'
  | 'limit_usd'
  | 'grace_usd'
  | 'expires_at'
  | 'disabled'
  | 'amount_usd'
  | 'note'
  | 'rpm'
  | 'tpm'
  | 'replaces'
  | 'limit_reset'
  | 'allowed_models';

/** The same fields as the command line names them, so its messages stay its own. */
const cliNames: Record<KeyField, string> = {
  kind: '--kind',
  parent_id: '--parent',
  name: '--name',
  limit_usd: '--limit-usd',
  grace_usd: '--grace-usd',
  expires_at: '--expires-at',
  disabled: 'disable/enable',
  amount_usd: '--amount-usd',
  note: '--note',
  rpm: '--rpm',
  tpm: '--tpm',
  // Only the routes take it (a workbench rotation); the command line rotates a key in place.
  replaces: 'replaces',
  limit_reset: '--limit-reset',
  allowed_models: '--allowed-models',
};

type Explain = (name: (field: KeyField) => string) => string;

/**
 * A refused change. `message` names fields as the command line spells them (`--limit-usd`);
 * `apiMessage` as the HTTP API does (`'limit_usd'`).
 */
export class KeyAdminError extends Error {
  constructor(
    readonly reason: 'invalid' | 'not_found' | 'conflict',
    private readonly explain: Explain,
    readonly field: KeyField | null = null,
  ) {
    super(explain((field) => cliNames[field]));
    this.name = 'KeyAdminError';
  }

  get apiMessage(): string {
    return this.explain((field) => `'${field}'`);
  }
}

const invalid = (field: KeyField | null, explain: Explain) =>
  new KeyAdminError('invalid', explain, field);

export type CreateKeyInput = {
  kind: KeyKind;
  parentId?: string;
  limitUsd?: number;
  graceUsd?: number;
  expiresAt?: number | null;
  name?: string;
  /** A key of the same parent this one replaces (a rotation); noted in its `create` event. */
  replacesId?: string;
  limitReset?: LimitReset;
  /** Empty or absent: every model its parent allows. */
  allowedModels?: string[];
};

/** What `set` changes; a field left out stays as it is. */
export type KeyChange = {
  name?: string;
  limitUsd?: number;
  graceUsd?: number;
  expiresAt?: number | null;
  disabled?: boolean;
  /** Requests per minute; null: back to the gateway's default. */
  rpmLimit?: number | null;
  /** Tokens per minute; null: back to the gateway's default. */
  tpmLimit?: number | null;
  limitReset?: LimitReset;
  /** Empty: every model its parent allows. */
  allowedModels?: string[];
};

export type TopUp = { kind: 'recharge' | 'credit'; amountUsd: number; note: string };

/** What `keys create` and `keys rotate` hand out: the only place a full key ever appears. */
export type IssuedKey = { id: string; key: string; kind: KeyKind; parent_id: string | null };

/** A key as the command line and the key-management routes show it: only the masked form. */
export type KeySummary = {
  id: string;
  kind: KeyKind;
  parent_id: string | null;
  name: string;
  key: string;
  /** As `GET /v1/key` says it (`blocked`: its parent stops it), or `revoked`. */
  state: KeyStateName | 'revoked';
  limit_usd: number | null;
  grace_usd: number | null;
  consumption_usd: number | null;
  /**
   * Charges recorded but not yet moved into `consumption_usd` by the settlement loop; null for a
   * shared child (its charges are its parent's).
   */
  pending_usd: number | null;
  remaining_usd: number | null;
  /** Account keys: operator-funded part of the limit (plus what was allocated on). */
  recharge_usd: number | null;
  /** Account keys: granted credit, part of the limit. */
  credit_usd: number | null;
  /** Account keys: given to allocated children; allocated children: their limit. */
  allocated_usd: number | null;
  expires_at: number | null;
  disabled: boolean;
  created_at: number;
  revoked_at: number | null;
  /** Requests and tokens per minute; null: the gateway's defaults. */
  rpm_limit: number | null;
  tpm_limit: number | null;
  /** How often the limit renews; `consumption_usd` and `pending_usd` are the current period's. */
  limit_reset: LimitReset;
  /** Unix seconds; null for `none` (and for a shared child, which spends its parent's period). */
  period_started_at: number | null;
  resets_at: number | null;
  /** The key's own list; null: every model its parent allows. */
  allowed_models: string[] | null;
};

/** An audited change as the events routes show it. */
export type KeyEvent = {
  object: 'key_event';
  id: number;
  key_id: string;
  /** The acting key's id, `admin` (operator routes), `cli` (command line) or `system`. */
  actor: KeyActor;
  action: string;
  changes: Record<string, { old: unknown; new: unknown }>;
  note: string | null;
  created_at: number;
};

/** Default spending limit for a new account or allocated child key when none is given. */
export const DEFAULT_LIMIT_USD = 10;
export const MAX_USD = 1_000_000;
export const MAX_NAME_LENGTH = 100;
export const MAX_NOTE_LENGTH = 500;

const usd = (nanos: Nanos) => nanosToUsd(nanos);

type Changes = Record<string, { old: unknown; new: unknown }>;

export class KeyAdmin {
  /**
   * @param onChange called after every committed change, so the gateway's in-memory registry
   * follows it before the next request (the command line's changes arrive through `keys_version`).
   */
  constructor(
    private readonly store: GatewayStore,
    private readonly digest: KeyDigester,
    private readonly onChange: () => Promise<void> | void = () => {},
    /** Told of each audited change inside its transaction (key events: events/key-events.ts). */
    private readonly listener?: KeyChangeListener,
    /** Decides expiry and budget periods (GATEWAY_CLOCK_OFFSET_MS moves it in drills). */
    private readonly clock: CalendarClock = calendarClock(),
  ) {}

  private readonly rolling = new Map<string, Promise<boolean>>();

  private nowSeconds(): number {
    return this.clock.nowSeconds();
  }

  /**
   * Starts the key's next budget period if its current one has ended (keys/budget-period.ts):
   * once, whichever instance comes first; one attempt per key at a time in this process. True
   * when this call started it.
   */
  rollPeriod(id: string): Promise<boolean> {
    const running = this.rolling.get(id);
    if (running) return running;
    const rolling = this.commit(async () => {
      const row = await this.require(id);
      const now = this.nowSeconds();
      if (!periodDue(row, now)) return false;
      const from = row.periodStartedAt!;
      const startedAt = periodStart(row.limitReset, now)!;
      const spent = periodSpend(row, await this.store.pendingFor(id)).total;
      const ended = periodEnd(row.limitReset, from)!;
      // An allocated child's new period is funded by its account: what it spent is allocated
      // to it again, as far as the account has it left; it may spend only what it then holds.
      const parent = row.kind === 'allocated_child' ? await this.require(row.parentId!) : null;
      const funded = parent ? Math.min(spent, await this.available(parent)) : 0;
      const cap = parent ? await this.baseCap(row, funded) : undefined;
      if (!(await this.store.rollKeyPeriod(id, from, ended, startedAt, cap))) return false;
      if (parent && funded > 0) {
        await this.allocate(parent, row, funded, 'system', { renewal: true });
      }
      await this.audit(id, 'system', 'period_reset', {
        period_started_at: { old: from, new: startedAt },
        consumption_usd: { old: usd(spent), new: 0 },
      });
      return true;
    }).finally(() => this.rolling.delete(id));
    this.rolling.set(id, rolling);
    return rolling;
  }

  /** A key's past budget periods, newest first, with what it spent in each. */
  async periods(id: string, limit: number): Promise<KeyPeriod[]> {
    const row = await this.require(id);
    const past = await this.store.listKeyPeriods(id, limit);
    // What a period spent is the next one's base minus its own (the current one's for the last).
    return past.map((period, index) => {
      const nextBase = index === 0 ? row.periodBaseNanos : past[index - 1]!.baseNanos;
      return {
        object: 'key_period',
        started_at: period.startedAt,
        ended_at: period.endedAt,
        limit_usd: usd(period.limitNanos),
        consumption_usd: usd(Math.max(nextBase - period.baseNanos + period.cappedNanos, 0)),
      };
    });
  }

  async create(input: CreateKeyInput, actor: KeyActor = 'cli'): Promise<IssuedKey> {
    return this.commit(async () => {
      const parent = input.parentId === undefined ? undefined : await this.require(input.parentId);
      if (input.kind === 'account' && parent) {
        throw invalid(
          'parent_id',
          (name) => `An account key has no parent: leave out ${name('parent_id')}.`,
        );
      }
      if (input.kind !== 'account') {
        if (!parent) {
          throw invalid(
            'parent_id',
            (name) => `A ${input.kind} key needs ${name('parent_id')} (an account key's id).`,
          );
        }
        if (parent.kind !== 'account') {
          throw invalid(
            'parent_id',
            () =>
              `The parent ${parent.id} is a ${parent.kind} key; a parent must be an account key.`,
          );
        }
        if (parent.revokedAt !== null) {
          throw new KeyAdminError(
            'conflict',
            () => `The parent ${parent.id} is revoked.`,
            'parent_id',
          );
        }
      }
      if (
        input.kind === 'shared_child' &&
        (input.limitUsd !== undefined || input.graceUsd !== undefined)
      ) {
        throw invalid(
          input.limitUsd !== undefined ? 'limit_usd' : 'grace_usd',
          (name) =>
            `A shared_child key spends its parent's balance: it takes no ${name('limit_usd')} or ${name('grace_usd')}.`,
        );
      }
      validateMoney('limit_usd', input.limitUsd);
      validateMoney('grace_usd', input.graceUsd);
      validateExpiry(input.expiresAt);
      validateName(input.name);
      validateReset(input.kind, input.limitReset);
      const allowedModels = validateModels(input.allowedModels, parent);
      const replaced =
        input.replacesId === undefined ? undefined : await this.store.getKey(input.replacesId);
      if (
        input.replacesId !== undefined &&
        // Only a child replaces a key (of its own parent): an account key naming another account
        // key would match on the missing parent, and see a stranger's records.
        (parent === undefined || !replaced || replaced.parentId !== parent.id)
      ) {
        throw invalid(
          'replaces',
          (name) => `${name('replaces')} must be the id of a child key of the same parent.`,
        );
      }

      const key = generateKey();
      const row: KeyRow = {
        id: generateKeyId(),
        kind: input.kind,
        parentId: parent?.id ?? null,
        name: input.name ?? `${input.kind.replace('_', ' ')} key`,
        digest: this.digest(key),
        masked: maskKey(key),
        limitNanos:
          input.kind === 'shared_child' ? 0 : usdToNanos(input.limitUsd ?? DEFAULT_LIMIT_USD),
        graceNanos: input.kind === 'shared_child' ? 0 : usdToNanos(input.graceUsd ?? 0),
        consumptionNanos: 0,
        expiresAt: input.expiresAt ?? null,
        disabled: false,
        revokedAt: null,
        createdAt: this.nowSeconds(),
        rpmLimit: null,
        tpmLimit: null,
        replacesId: replaced?.id ?? null,
        limitReset: input.limitReset ?? 'none',
        periodStartedAt: periodStart(input.limitReset ?? 'none', this.nowSeconds()),
        periodBaseNanos: 0,
        allowedModels,
      };
      // A child funded by its account is checked before anything is written.
      if (row.kind === 'allocated_child') await this.requireFunds(parent!, row.limitNanos, actor);
      await this.store.insertKey(row);
      if (row.kind === 'account' && row.limitNanos > 0) {
        await this.book(row, actor, {
          entry: 'opening',
          rechargeNanos: row.limitNanos,
          limitNanos: row.limitNanos,
        });
      }
      await this.audit(
        row.id,
        actor,
        'create',
        {
          kind: { old: null, new: row.kind },
          parent_id: { old: null, new: row.parentId },
          name: { old: null, new: row.name },
          key: { old: null, new: row.masked },
          ...(row.kind === 'shared_child'
            ? {}
            : {
                limit_usd: { old: null, new: usd(row.limitNanos) },
                grace_usd: { old: null, new: usd(row.graceNanos) },
              }),
          expires_at: { old: null, new: row.expiresAt },
          ...(row.limitReset === 'none' ? {} : { limit_reset: { old: null, new: row.limitReset } }),
          ...(row.allowedModels ? { allowed_models: { old: null, new: row.allowedModels } } : {}),
        },
        replaced ? `rotated from ${replaced.masked} (${replaced.id})` : null,
      );
      if (row.kind === 'allocated_child') await this.allocate(parent!, row, row.limitNanos, actor);
      return { id: row.id, key, kind: row.kind, parent_id: row.parentId };
    });
  }

  /** Every key, or those matching the filter; revoked keys only when asked for (or unfiltered). */
  async list(
    filter: { parentId?: string; kind?: KeyKind; includeRevoked?: boolean } = {},
  ): Promise<KeySummary[]> {
    const rows = (await this.store.listKeys()).filter(
      (row) =>
        (filter.parentId === undefined || row.parentId === filter.parentId) &&
        (filter.kind === undefined || row.kind === filter.kind) &&
        (filter.includeRevoked !== false || row.revokedAt === null),
    );
    return Promise.all(rows.map((row) => this.summarize(row)));
  }

  async show(id: string): Promise<KeySummary> {
    return await this.summarize(await this.require(id));
  }

  /** The key row itself (no secret in it is ever shown), or undefined. */
  async find(id: string): Promise<KeyRow | undefined> {
    return await this.store.getKey(id);
  }

  async setDisabled(id: string, disabled: boolean, actor: KeyActor = 'cli'): Promise<KeySummary> {
    return this.apply(id, { disabled }, actor, disabled ? 'disable' : 'enable');
  }

  /**
   * Changes name, limit, grace, expiry or disabled, as one audited change. A limit below what the
   * key has spent (settled and pending) is refused with the figures, except on the command line,
   * where an operator may stop a key that way (`--limit-usd 0`).
   */
  async set(id: string, change: KeyChange, actor: KeyActor = 'cli'): Promise<KeySummary> {
    return this.apply(id, change, actor, 'update');
  }

  /**
   * Revokes for good. An allocated child's unspent limit goes back to its account; its limit
   * becomes what it has spent.
   */
  async revoke(id: string, actor: KeyActor = 'cli'): Promise<KeySummary> {
    return this.commit(async () => {
      const row = await this.require(id);
      if (row.revokedAt !== null) return await this.summarize(row);
      const revokedAt = this.nowSeconds();
      const changes: Changes = { revoked_at: { old: null, new: revokedAt } };
      if (row.kind === 'allocated_child') {
        const parent = await this.require(row.parentId!);
        const kept = row.limitNanos - (await this.unspentAllocation(row));
        if (kept < row.limitNanos) {
          await this.giveBack(
            parent,
            row,
            row.limitNanos - kept,
            actor,
            'unspent limit of a revoked child',
          );
          await this.store.updateKey(id, { limitNanos: kept });
          changes.limit_usd = { old: usd(row.limitNanos), new: usd(kept) };
        }
      }
      await this.store.updateKey(id, { revokedAt });
      await this.audit(id, actor, 'revoke', changes);
      return await this.show(id);
    });
  }

  /**
   * A new secret for the same key: id, balance, limits and children stay; the old secret stops
   * working at once.
   */
  async rotate(id: string, actor: KeyActor = 'cli'): Promise<IssuedKey> {
    return this.commit(async () => {
      const row = await this.requireLive(id);
      const key = generateKey();
      const masked = maskKey(key);
      await this.store.updateKey(id, { digest: this.digest(key), masked });
      await this.audit(id, actor, 'rotate', { key: { old: row.masked, new: masked } });
      return { id: row.id, key, kind: row.kind, parent_id: row.parentId };
    });
  }

  /**
   * Adds money to an account key: a recharge (paid) or a credit (granted). Either raises the
   * limit by the amount; each is a ledger entry and an audit row with its note.
   */
  async topUp(id: string, topUp: TopUp, actor: KeyActor = 'cli'): Promise<KeySummary> {
    return this.commit(async () => {
      const row = await this.requireLive(id);
      if (row.kind !== 'account') {
        throw invalid(
          null,
          () =>
            `Only an account key is topped up; ${row.id} is a ${row.kind} key, funded by its account.`,
        );
      }
      if (!Number.isFinite(topUp.amountUsd) || topUp.amountUsd <= 0 || topUp.amountUsd > MAX_USD) {
        throw invalid(
          'amount_usd',
          (name) => `${name('amount_usd')} must be a number of USD above 0 and at most ${MAX_USD}.`,
        );
      }
      const note = topUp.note.trim();
      if (note === '' || note.length > MAX_NOTE_LENGTH) {
        throw invalid(
          'note',
          (name) => `${name('note')} must say why, in 1 to ${MAX_NOTE_LENGTH} characters.`,
        );
      }
      const amount = usdToNanos(topUp.amountUsd);
      const before = await this.moneyOf(row);
      await this.book(row, actor, {
        entry: topUp.kind,
        rechargeNanos: topUp.kind === 'recharge' ? amount : 0,
        creditNanos: topUp.kind === 'credit' ? amount : 0,
        limitNanos: amount,
        note,
      });
      await this.store.updateKey(id, { limitNanos: row.limitNanos + amount });
      const figure = topUp.kind === 'recharge' ? 'recharge_usd' : 'credit_usd';
      await this.audit(
        id,
        actor,
        topUp.kind,
        {
          limit_usd: { old: usd(row.limitNanos), new: usd(row.limitNanos + amount) },
          [figure]: {
            old: usd(topUp.kind === 'recharge' ? before.recharge : before.credit),
            new: usd((topUp.kind === 'recharge' ? before.recharge : before.credit) + amount),
          },
        },
        note,
      );
      return await this.show(id);
    });
  }

  /** A key's audited changes, newest first. */
  async events(id: string, page: { limit: number; beforeId?: number }): Promise<KeyEvent[]> {
    return (await this.store.listKeyEvents(id, page)).map(toKeyEvent);
  }

  private async apply(
    id: string,
    change: KeyChange,
    actor: KeyActor,
    action: string,
  ): Promise<KeySummary> {
    return this.commit(async () => {
      const row = await this.requireLive(id);
      if (
        row.kind === 'shared_child' &&
        (change.limitUsd !== undefined || change.graceUsd !== undefined)
      ) {
        throw invalid(
          change.limitUsd !== undefined ? 'limit_usd' : 'grace_usd',
          () => "A shared_child key spends its parent's balance: set the parent's limit instead.",
        );
      }
      validateMoney('limit_usd', change.limitUsd);
      validateMoney('grace_usd', change.graceUsd);
      validateExpiry(change.expiresAt);
      validateName(change.name);
      validateReset(row.kind, change.limitReset);

      const update: KeyUpdate = {};
      const changes: Changes = {};
      if (change.name !== undefined && change.name !== row.name) {
        update.name = change.name;
        changes.name = { old: row.name, new: change.name };
      }
      if (change.graceUsd !== undefined && usdToNanos(change.graceUsd) !== row.graceNanos) {
        update.graceNanos = usdToNanos(change.graceUsd);
        changes.grace_usd = { old: usd(row.graceNanos), new: usd(update.graceNanos) };
      }
      if (change.expiresAt !== undefined && change.expiresAt !== row.expiresAt) {
        update.expiresAt = change.expiresAt;
        changes.expires_at = { old: row.expiresAt, new: change.expiresAt };
      }
      for (const [field, column] of [
        ['rpm', 'rpmLimit'],
        ['tpm', 'tpmLimit'],
      ] as const) {
        const value = change[column];
        if (value === undefined || value === row[column]) continue;
        validateRate(field, value);
        update[column] = value;
        changes[field] = { old: row[column], new: value };
      }
      if (change.allowedModels !== undefined) {
        const parent = row.parentId === null ? undefined : await this.require(row.parentId);
        const list = validateModels(change.allowedModels, parent);
        if (JSON.stringify(list) !== JSON.stringify(row.allowedModels)) {
          update.allowedModels = list;
          changes.allowed_models = { old: row.allowedModels, new: list };
        }
      }
      if (change.limitReset !== undefined && change.limitReset !== row.limitReset) {
        // A new period starts now, with the whole limit: what was spent before is the base.
        update.limitReset = change.limitReset;
        update.periodStartedAt = periodStart(change.limitReset, this.nowSeconds());
        const charged = row.consumptionNanos + (await this.store.pendingFor(row.id));
        update.periodBaseNanos =
          change.limitReset === 'none'
            ? 0
            : row.kind === 'allocated_child'
              ? Math.min(charged, await this.baseCap(row, 0))
              : charged;
        changes.limit_reset = { old: row.limitReset, new: change.limitReset };
      }
      if (change.disabled !== undefined && change.disabled !== row.disabled) {
        update.disabled = change.disabled;
        changes.disabled = { old: row.disabled, new: change.disabled };
      }
      if (change.limitUsd !== undefined && usdToNanos(change.limitUsd) !== row.limitNanos) {
        const limit = usdToNanos(change.limitUsd);
        await this.changeLimit(row, limit, actor);
        update.limitNanos = limit;
        changes.limit_usd = { old: usd(row.limitNanos), new: usd(limit) };
      }
      if (Object.keys(changes).length > 0) {
        await this.store.updateKey(id, update);
        await this.audit(id, actor, action, changes);
      }
      return await this.show(id);
    });
  }

  /** Checks a new limit and books what it moves; the caller writes the key's own row. */
  private async changeLimit(row: KeyRow, limit: Nanos, actor: KeyActor): Promise<void> {
    const spent = await this.spentBy(row);
    if (limit < spent.total && actor !== 'cli') {
      throw invalid(
        'limit_usd',
        (name) =>
          `${name('limit_usd')} ${usd(limit)} is below what this key has already spent: ${formatNanosUsd(spent.total)} ` +
          `(${formatNanosUsd(spent.settled)} settled, ${formatNanosUsd(spent.pending)} not yet settled). Set it to at least ${usd(spent.total)}.`,
      );
    }
    const delta = limit - row.limitNanos;
    if (row.kind === 'account') {
      // Set directly: a rise counts as recharge; a cut comes off recharge first, then credit.
      const { recharge } = await this.moneyOf(row);
      const fromRecharge = delta >= 0 ? delta : -Math.min(-delta, recharge);
      await this.book(row, actor, {
        entry: 'adjustment',
        rechargeNanos: fromRecharge,
        creditNanos: delta - fromRecharge,
        limitNanos: delta,
      });
      return;
    }
    const parent = await this.require(row.parentId!);
    if (delta > 0) {
      await this.requireFunds(parent, delta, actor);
      await this.allocate(parent, row, delta, actor);
    } else {
      // Only what the child has not spent, in all its periods, goes back (the command line may cut
      // below the spend).
      const returned = Math.min(row.limitNanos - limit, await this.unspentAllocation(row));
      if (returned > 0) await this.giveBack(parent, row, returned, actor, 'limit lowered');
      if (-delta > returned) {
        await this.book(row, actor, {
          entry: 'adjustment',
          allocatedNanos: delta + returned,
          limitNanos: delta + returned,
        });
      }
    }
  }

  /** What an account key has left to give its children. */
  private async available(parent: KeyRow): Promise<Nanos> {
    return Math.max(parent.limitNanos - (await this.spentBy(parent)).total, 0);
  }

  /** Refuses a child's funding its account key cannot give (the operator funds it instead). */
  private async requireFunds(parent: KeyRow, amount: Nanos, actor: KeyActor): Promise<void> {
    if (actor !== parent.id || amount === 0) return;
    const spent = await this.spentBy(parent);
    const available = await this.available(parent);
    if (amount > available) {
      throw invalid(
        'limit_usd',
        (name) =>
          `${name('limit_usd')} needs ${formatNanosUsd(amount)} from the account key, which has ${formatNanosUsd(available)} left to give ` +
          `(limit ${formatNanosUsd(parent.limitNanos)}, spent ${formatNanosUsd(spent.total)}).`,
      );
    }
  }

  /** Moves `amount` to a child: from its account's limit, or (operator) as new money through it. */
  private async allocate(
    parent: KeyRow,
    child: KeyRow,
    amount: Nanos,
    actor: KeyActor,
    /**
     * `renewal`: a new budget period of the child, refilled from its account's limit (not new
     * money, whoever acts); the child's own limit, a limit for each period, does not move.
     */
    options: { renewal?: boolean } = {},
  ): Promise<void> {
    if (amount === 0) return;
    const byAccount = options.renewal === true || actor === parent.id;
    const before = await this.moneyOf(parent);
    await this.book(parent, actor, {
      entry: 'allocation',
      rechargeNanos: byAccount ? 0 : amount,
      allocatedNanos: amount,
      limitNanos: byAccount ? -amount : 0,
      counterpartId: child.id,
    });
    await this.book(child, actor, {
      entry: 'allocation',
      allocatedNanos: amount,
      limitNanos: options.renewal ? 0 : amount,
      counterpartId: parent.id,
      note: options.renewal ? 'a new budget period' : null,
    });
    const changes: Changes = {
      allocated_usd: { old: usd(before.allocated), new: usd(before.allocated + amount) },
    };
    if (byAccount) {
      await this.store.updateKey(parent.id, { limitNanos: parent.limitNanos - amount });
      changes.limit_usd = { old: usd(parent.limitNanos), new: usd(parent.limitNanos - amount) };
    } else {
      changes.recharge_usd = { old: usd(before.recharge), new: usd(before.recharge + amount) };
    }
    await this.audit(
      parent.id,
      actor,
      'allocate',
      changes,
      `to ${child.id}${options.renewal ? ': its new budget period' : ''}`,
    );
  }

  /** Returns `amount` of a child's limit to its account's limit. */
  private async giveBack(
    parent: KeyRow,
    child: KeyRow,
    amount: Nanos,
    actor: KeyActor,
    why: string,
  ): Promise<void> {
    const before = await this.moneyOf(parent);
    await this.book(parent, actor, {
      entry: 'return',
      allocatedNanos: -amount,
      limitNanos: amount,
      counterpartId: child.id,
      note: why,
    });
    await this.book(child, actor, {
      entry: 'return',
      allocatedNanos: -amount,
      limitNanos: -amount,
      counterpartId: parent.id,
      note: why,
    });
    await this.store.updateKey(parent.id, { limitNanos: parent.limitNanos + amount });
    await this.audit(
      parent.id,
      actor,
      'return',
      {
        limit_usd: { old: usd(parent.limitNanos), new: usd(parent.limitNanos + amount) },
        allocated_usd: { old: usd(before.allocated), new: usd(before.allocated - amount) },
      },
      `from ${child.id}: ${why}`,
    );
  }

  private async book(
    row: KeyRow,
    actor: KeyActor,
    entry: Partial<LedgerEntry> & Pick<LedgerEntry, 'entry' | 'limitNanos'>,
  ): Promise<void> {
    await this.store.insertLedgerEntry({
      keyId: row.id,
      rechargeNanos: 0,
      creditNanos: 0,
      allocatedNanos: 0,
      counterpartId: null,
      note: null,
      actor,
      createdAt: this.nowSeconds(),
      ...entry,
    });
  }

  private async audit(
    keyId: string,
    actor: KeyActor,
    action: string,
    changes: Changes,
    note: string | null = null,
  ): Promise<void> {
    await this.store.insertKeyEvent({
      keyId,
      actor,
      action,
      changes,
      note,
      createdAt: this.nowSeconds(),
    });
    await this.listener?.({ keyId, action, changes });
  }

  /**
   * The highest base an allocated child's period may have, so that what the period lets it spend
   * (limit less charges beyond the base) is never more than what its account gave it and it has
   * not spent: everything allocated to it (with `refill` about to be), less its limit.
   */
  private async baseCap(row: KeyRow, refill: Nanos): Promise<Nanos> {
    return (await this.store.ledgerTotals(row.id)).allocatedNanos + refill - row.limitNanos;
  }

  /**
   * What an allocated child holds unspent: all its account gave it (its first limit, raises, and
   * each budget period's refill) less all it ever spent. No give-back returns more.
   */
  private async unspentAllocation(row: KeyRow): Promise<Nanos> {
    const given = (await this.store.ledgerTotals(row.id)).allocatedNanos;
    const spent = row.consumptionNanos + (await this.store.pendingFor(row.id));
    return Math.min(Math.max(given - spent, 0), row.limitNanos);
  }

  /** What a key has spent (in its current period, if it has one): settled and not yet settled. */
  private async spentBy(row: KeyRow): Promise<{ settled: Nanos; pending: Nanos; total: Nanos }> {
    return periodSpend(row, await this.store.pendingFor(row.id));
  }

  private moneyOf(row: KeyRow): Promise<MoneyFigures> {
    return moneyFigures(this.store, row);
  }

  /** Runs a change in one transaction, then lets the gateway's registry follow it. */
  private async commit<T>(work: () => Promise<T>): Promise<T> {
    const result = await this.store.transaction(work);
    await this.onChange();
    return result;
  }

  private async require(id: string): Promise<KeyRow> {
    const row = await this.store.getKey(id);
    if (!row)
      throw new KeyAdminError(
        'not_found',
        () => `No key with id ${id}. List the keys with: keys list`,
      );
    return row;
  }

  private async requireLive(id: string): Promise<KeyRow> {
    const row = await this.require(id);
    if (row.revokedAt !== null) {
      throw new KeyAdminError(
        'conflict',
        () => `The key ${id} is revoked; a revoked key cannot change.`,
      );
    }
    return row;
  }

  private async summarize(row: KeyRow): Promise<KeySummary> {
    const shared = row.kind === 'shared_child';
    const parent = row.parentId === null ? undefined : await this.store.getKey(row.parentId);
    const funding = shared ? (parent ?? row) : row;
    const money = await this.moneyOf(row);
    const spent = await this.spentBy(row);
    return {
      id: row.id,
      kind: row.kind,
      parent_id: row.parentId,
      name: row.name,
      key: row.masked,
      state: row.revokedAt !== null ? 'revoked' : keyStatus(row, parent, this.nowSeconds()).state,
      limit_usd: shared ? null : usd(row.limitNanos),
      grace_usd: shared ? null : usd(row.graceNanos),
      consumption_usd: shared ? null : usd(spent.settled),
      pending_usd: shared ? null : usd(spent.pending),
      remaining_usd: usd(remainingNanos(funding)),
      recharge_usd: shared ? null : usd(money.recharge),
      credit_usd: shared ? null : usd(money.credit),
      allocated_usd: shared ? null : usd(money.allocated),
      expires_at: row.expiresAt,
      disabled: row.disabled,
      created_at: row.createdAt,
      revoked_at: row.revokedAt,
      rpm_limit: row.rpmLimit,
      tpm_limit: row.tpmLimit,
      ...periodFields(funding),
      allowed_models: row.allowedModels,
    };
  }
}

/** A past budget period as `GET /v1/keys/{id}/periods` shows it. */
export type KeyPeriod = {
  object: 'key_period';
  started_at: number;
  ended_at: number;
  limit_usd: number;
  consumption_usd: number;
};

/** The period fields of every view of a key's money (its funding key's, for a shared child). */
export function periodFields(funding: KeyRow): {
  limit_reset: LimitReset;
  period_started_at: number | null;
  resets_at: number | null;
} {
  return {
    limit_reset: funding.limitReset,
    period_started_at: funding.periodStartedAt,
    resets_at:
      funding.periodStartedAt === null
        ? null
        : periodEnd(funding.limitReset, funding.periodStartedAt),
  };
}

export type MoneyFigures = { recharge: Nanos; credit: Nanos; allocated: Nanos };

/**
 * The balance figures beside `limit_usd` (recharge, credit, allocated: docs/keys-and-money.md). An
 * account key: credit and allocated from its ledger, recharge the rest, so `limit = recharge +
 * credit - allocated` holds exactly whatever wrote the limit. An allocated child: its limit is what
 * was allocated to it.
 */
export async function moneyFigures(store: GatewayStore, row: KeyRow): Promise<MoneyFigures> {
  if (row.kind !== 'account') return { recharge: 0, credit: 0, allocated: row.limitNanos };
  const totals = await store.ledgerTotals(row.id);
  return {
    recharge: row.limitNanos + totals.allocatedNanos - totals.creditNanos,
    credit: totals.creditNanos,
    allocated: totals.allocatedNanos,
  };
}

const toKeyEvent = (row: KeyEventRow): KeyEvent => ({
  object: 'key_event',
  id: row.id,
  key_id: row.keyId,
  actor: row.actor,
  action: row.action,
  changes: row.changes,
  note: row.note,
  created_at: row.createdAt,
});

function validateMoney(field: 'limit_usd' | 'grace_usd', value: number | undefined): void {
  if (value === undefined) return;
  if (!Number.isFinite(value) || value < 0 || value > MAX_USD) {
    throw invalid(field, (name) => `${name(field)} must be a number of USD from 0 to ${MAX_USD}.`);
  }
}

/** A shared child spends its parent's money in its parent's period: it has none of its own. */
function validateReset(kind: KeyKind, value: LimitReset | undefined): void {
  if (value === undefined || value === 'none' || kind !== 'shared_child') return;
  throw invalid(
    'limit_reset',
    (name) =>
      `A shared_child key spends its parent's balance, in its parent's period: it takes no ${name('limit_reset')}.`,
  );
}

/** The list to store (null for every model), or the refusal naming what is wrong with it. */
function validateModels(list: string[] | undefined, parent: KeyRow | undefined): string[] | null {
  if (list === undefined || list.length === 0) return null;
  if (list.length > MAX_ALLOWED_MODELS) {
    throw invalid(
      'allowed_models',
      (name) => `${name('allowed_models')} holds at most ${MAX_ALLOWED_MODELS} ids or patterns.`,
    );
  }
  for (const entry of list) {
    const problem = patternProblem(entry);
    if (problem) {
      throw invalid(
        'allowed_models',
        (name) =>
          `${name('allowed_models')} holds ${problem}: give model ids or patterns such as anthropic/* or *:free.`,
      );
    }
  }
  const beyond = entriesBeyond(list, parent?.allowedModels);
  if (beyond.length > 0) {
    throw invalid(
      'allowed_models',
      (name) =>
        `${name('allowed_models')} may only narrow what the parent key allows (${parent!.allowedModels!.join(', ')}); ${beyond.join(', ')} goes beyond it.`,
    );
  }
  return [...new Set(list)];
}

function validateRate(field: 'rpm' | 'tpm', value: number | null): void {
  if (value === null) return;
  if (!Number.isSafeInteger(value) || value < 0 || value > 10_000_000_000) {
    throw invalid(
      field,
      (name) =>
        `${name(field)} must be a whole number of ${field === 'rpm' ? 'requests' : 'tokens'} per minute (0 blocks the key), or none for the default.`,
    );
  }
}

function validateExpiry(value: number | null | undefined): void {
  if (value === undefined || value === null) return;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw invalid(
      'expires_at',
      (name) => `${name('expires_at')} must be a Unix time in whole seconds (or none).`,
    );
  }
}

function validateName(value: string | undefined): void {
  if (value === undefined) return;
  if (value.trim() === '' || value.length > MAX_NAME_LENGTH || /\p{Cc}/u.test(value)) {
    throw invalid(
      'name',
      (name) =>
        `${name('name')} must be 1 to ${MAX_NAME_LENGTH} characters, without control characters.`,
    );
  }
}
