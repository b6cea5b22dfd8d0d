/**
 * An allocated child whose limit renews spends only what its account gave it: each new period is
 * refilled from the account's limit as far as the account has it, and no change of period or
 * revocation hands back money the child spent (a review found both ways to mint money).
 */
import fs from 'node:fs';
import path from 'node:path';
import { openSqliteStore } from '../store/sqlite-store';
import type { GatewayStore } from '../store/store';
import { generationRow } from '../store/store-contract';
import { tempFolder } from '../../testing/gateway-support';
import { calendarClock } from './calendar-clock';
import { KeyAdmin } from './key-admin';
import { createKeyDigester } from './key-material';

const USD = 1_000_000_000;
const DAY_MS = 86_400_000;
let folder: string;
let store: GatewayStore;
/** Milliseconds the test has moved the calendar on. */
let offsetMs = 0;
let admin: KeyAdmin;

beforeEach(() => {
  folder = tempFolder();
  store = openSqliteStore(path.join(folder, 'gateway.db'));
  offsetMs = 0;
  const clock = { nowSeconds: () => calendarClock(offsetMs).nowSeconds() };
  admin = new KeyAdmin(
    store,
    createKeyDigester('a-pepper-long-enough-for-tests'),
    undefined,
    undefined,
    clock,
  );
});
afterEach(async () => {
  await store.close();
  fs.rmSync(folder, { recursive: true, force: true });
});

let spends = 0;
/** Charges `usd` to `keyId` and settles it, as a finished request would. */
async function spend(keyId: string, usd: number): Promise<void> {
  spends += 1;
  await store.insertGenerations([
    generationRow({ id: `g${spends}`, keyId, fundingKeyId: keyId, costNanos: usd * USD }),
  ]);
  await store.settlePending(1);
}

const remaining = async (id: string) => (await admin.show(id)).remaining_usd;
const limit = async (id: string) => (await admin.show(id)).limit_usd;

describe('an allocated child with a limit that renews', () => {
  it('is refilled from its account each period, only as far as the account has it', async () => {
    const account = await admin.create({ kind: 'account', limitUsd: 25 }, 'admin');
    const child = await admin.create(
      { kind: 'allocated_child', parentId: account.id, limitUsd: 10, limitReset: 'daily' },
      account.id as `key_${string}`,
    );
    expect(await limit(account.id)).toBe(15);
    await spend(child.id, 10);
    expect(await remaining(child.id)).toBe(0);

    // The next day: the account refills the child's 10.
    offsetMs += DAY_MS;
    expect(await admin.rollPeriod(child.id)).toBe(true);
    expect(await remaining(child.id)).toBe(10);
    expect(await limit(account.id)).toBe(5);

    // Spent again; the account has only 5 left to give: the new period may spend 5.
    await spend(child.id, 10);
    offsetMs += DAY_MS;
    expect(await admin.rollPeriod(child.id)).toBe(true);
    expect(await limit(account.id)).toBe(0);
    expect(await remaining(child.id)).toBe(5);
    // All the child ever spent or may spend is what the account gave: 10 + 10 + 5.
    const history = await admin.periods(child.id, 10);
    expect(history.map((period) => period.consumption_usd)).toEqual([10, 10]);
  });

  it('mints nothing when its account gives a spent child a period, then revokes it', async () => {
    const account = await admin.create({ kind: 'account', limitUsd: 10 }, 'admin');
    const actor = account.id as `key_${string}`;
    const child = await admin.create(
      { kind: 'allocated_child', parentId: account.id, limitUsd: 10 },
      actor,
    );
    await spend(child.id, 10);
    await admin.set(child.id, { limitReset: 'daily' }, actor);
    // The period starts with what the child holds: nothing.
    expect(await remaining(child.id)).toBe(0);
    await admin.revoke(child.id, actor);
    expect(await limit(account.id)).toBe(0);
  });

  it('gives back on revocation only what it holds unspent, every period together', async () => {
    const account = await admin.create({ kind: 'account', limitUsd: 30 }, 'admin');
    const actor = account.id as `key_${string}`;
    const child = await admin.create(
      { kind: 'allocated_child', parentId: account.id, limitUsd: 10, limitReset: 'daily' },
      actor,
    );
    await spend(child.id, 8);
    offsetMs += DAY_MS;
    await admin.rollPeriod(child.id);
    await spend(child.id, 3);
    // Given 10 + 8, spent 11: it holds 7, which goes back.
    await admin.revoke(child.id, actor);
    expect(await limit(account.id)).toBe(30 - 18 + 7);
  });
});
