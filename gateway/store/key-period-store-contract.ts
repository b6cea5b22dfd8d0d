/**
 * Budget periods in the store (keys/budget-period.ts): rolling a key's period once whichever
 * instance comes first, its history, and the charge of a request admitted before the roll. Run
 * against both engines by their store integration tests.
 */
import { describe, expect, it } from 'vitest';
import {
  generationRow,
  inflightRow,
  keyRow,
  storesClosedAfterEach,
  type StoreFactory,
} from './store-contract';
import type { GatewayStore } from './store';

const USD = 1_000_000_000;
const DAY_ONE = 1_700_006_400; // a 00:00 UTC
const DAY_TWO = DAY_ONE + 86_400;

export function describeKeyPeriodStoreContract(factory: StoreFactory): void {
  const { open, openAnother } = storesClosedAfterEach(factory);

  describe('budget periods', () => {
    const dailyKey = () =>
      keyRow({
        limitNanos: 10 * USD,
        limitReset: 'daily',
        periodStartedAt: DAY_ONE,
        allowedModels: ['sim/chat-*', '*:free'],
      });

    it('keeps the period fields and the allowed models of a key', async () => {
      const store = await open();
      await store.insertKey(dailyKey());
      expect(await store.getKey('key_account')).toMatchObject({
        limitReset: 'daily',
        periodStartedAt: DAY_ONE,
        periodBaseNanos: 0,
        allowedModels: ['sim/chat-*', '*:free'],
      });
      await store.updateKey('key_account', { allowedModels: null, limitReset: 'monthly' });
      expect(await store.getKey('key_account')).toMatchObject({
        limitReset: 'monthly',
        allowedModels: null,
      });
    });

    it('rolls a period once, taking what was charged as the new base, and keeps the old one', async () => {
      const store = await open();
      await store.insertKey(dailyKey());
      await store.insertGenerations([
        generationRow({ id: 'g1', costNanos: 2 * USD }),
        generationRow({ id: 'g2', costNanos: 3 * USD }),
      ]);
      await store.settlePending(DAY_ONE + 10);
      await store.insertGenerations([generationRow({ id: 'g3', costNanos: 1 * USD })]);

      // Two instances roll the same period: the first does, the second finds it rolled.
      const another = await openAnother();
      const roll = (on: GatewayStore) =>
        on.transaction(() => on.rollKeyPeriod('key_account', DAY_ONE, DAY_TWO, DAY_TWO));
      expect(await roll(store)).toBe(true);
      expect(await roll(another)).toBe(false);
      expect(await store.getKey('key_account')).toMatchObject({
        periodStartedAt: DAY_TWO,
        // 5 settled and 1 pending when the period ended.
        periodBaseNanos: 6 * USD,
        consumptionNanos: 5 * USD,
      });
      expect(await store.fundingFigures('key_account')).toMatchObject({ periodBaseNanos: 6 * USD });
      expect(await store.listKeyPeriods('key_account', 10)).toEqual([
        {
          keyId: 'key_account',
          startedAt: DAY_ONE,
          endedAt: DAY_TWO,
          limitNanos: 10 * USD,
          baseNanos: 0,
          cappedNanos: 0,
        },
      ]);
    });

    it('rolls a period that begins where an earlier one did (its limit_reset changed)', async () => {
      const store = await open();
      await store.insertKey(dailyKey());
      const roll = (from: number, to: number) =>
        store.transaction(() => store.rollKeyPeriod('key_account', from, to, to));
      expect(await roll(DAY_ONE, DAY_TWO)).toBe(true);
      // Made weekly on day two: its week began on day one, where the daily period did.
      await store.updateKey('key_account', { limitReset: 'weekly', periodStartedAt: DAY_ONE });
      const weekEnd = DAY_ONE + 7 * 86_400;
      expect(await roll(DAY_ONE, weekEnd)).toBe(true);
      expect(await store.getKey('key_account')).toMatchObject({ periodStartedAt: weekEnd });
      expect(
        (await store.listKeyPeriods('key_account', 10)).map((period) => period.endedAt),
      ).toEqual([weekEnd, DAY_TWO]);
    });

    it('admits against the base: the new period has its whole limit', async () => {
      const store = await open();
      await store.insertKey(dailyKey());
      await store.insertGenerations([generationRow({ id: 'g1', costNanos: 10 * USD })]);
      const over = inflightRow({ id: 'r1', reservedNanos: 1 * USD });
      expect((await store.reserve(over)).ok).toBe(false);
      await store.transaction(() => store.rollKeyPeriod('key_account', DAY_ONE, DAY_TWO, DAY_TWO));
      expect(await store.reserve(over)).toEqual({ ok: true });
    });

    it('charges a request admitted before the roll to the earlier period, not the new one', async () => {
      const store = await open();
      await store.insertKey(dailyKey());
      await store.transaction(() => store.rollKeyPeriod('key_account', DAY_ONE, DAY_TWO, DAY_TWO));
      await store.insertGenerations([
        // Admitted in the first period, written after the roll: the new base takes it.
        generationRow({ id: 'late', costNanos: 2 * USD, admittedPeriodStart: DAY_ONE }),
        // Admitted in the new period: its own.
        generationRow({ id: 'own', costNanos: 3 * USD, admittedPeriodStart: DAY_TWO }),
      ]);
      expect(await store.getKey('key_account')).toMatchObject({ periodBaseNanos: 2 * USD });
      expect(await store.fundingFigures('key_account')).toMatchObject({
        pendingNanos: 5 * USD,
        periodBaseNanos: 2 * USD,
      });
    });
  });
}
