/**
 * Keys as two parts. The registry (read on every request) comes early: settlement and the events
 * read it. The admin (every change to a key) comes once the events exist, since each change
 * raises its events and wakes their sender.
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config';
import type { Assembled } from '../shared/assembly';
import type { GatewayStore } from '../store/store';
import { periodDue } from './budget-period';
import { calendarClock, type BudgetPeriods, type CalendarClock } from './calendar-clock';
import { KeyAdmin, type KeyChangeListener } from './key-admin';
import { createKeyDigester, loadPepper, type KeyDigester } from './key-material';
import { KeyRegistry } from './key-registry';

/** How often a full reload runs: the safety net for a missed change notice. */
const RESYNC_MS = 5_000;

export type KeysPart = {
  registry: KeyRegistry;
  /** The calendar: budget periods and expiry (GATEWAY_CLOCK_OFFSET_MS moves it in drills). */
  clock: CalendarClock;
  digest: KeyDigester;
  /** The secret keys are digested with; webhook secrets are sealed under it too. */
  pepper: string;
};

export async function createKeys(
  config: GatewayConfig,
  deps: { store: GatewayStore; logger: Logger },
): Promise<Assembled<KeysPart>> {
  const { store, logger } = deps;
  const pepper = loadPepper(config.databasePath, config.keyPepper);
  const digest = createKeyDigester(pepper);
  const registry = await KeyRegistry.open(store, digest);
  // Changes another process commits (the command line, another instance) reach this one within
  // a quarter second; a full reload every few seconds is the safety net for a missed notice.
  const reload = () =>
    registry.reload().catch((error: unknown) => {
      logger.error({ err: error }, 'key refresh failed; will retry');
    });
  const stopWatching = store.watchKeyChanges(() => void reload());
  const resync = setInterval(() => void reload(), RESYNC_MS);
  resync.unref();
  return {
    part: { registry, clock: calendarClock(config.clockOffsetMs), digest, pepper },
    close() {
      stopWatching();
      clearInterval(resync);
    },
  };
}

export function createKeyAdmin(deps: {
  store: GatewayStore;
  keys: KeysPart;
  /** Told of each change inside its transaction, and woken once it is made. */
  events: { keyEvents: { keyChanged: KeyChangeListener }; wake(): void };
  logger: Logger;
}): Assembled<{ admin: KeyAdmin; periods: BudgetPeriods }> {
  const { store, keys, events, logger } = deps;
  const { registry, clock } = keys;
  // Changes made in this process reach the registry at once (the next request sees them), and
  // the events they wrote to the outbox are sent at once.
  const onChange = async () => {
    await registry.reload();
    events.wake();
  };
  const admin = new KeyAdmin(store, keys.digest, onChange, events.keyEvents.keyChanged, clock);
  // A depleted periodic key comes back at its boundary without a request to roll it, so the
  // workbench and the events see the new period within a second (budget-period.ts).
  const periodTimer = setInterval(() => {
    const now = clock.nowSeconds();
    for (const key of registry.all()) {
      if (key.revokedAt !== null || !periodDue(key, now)) continue;
      admin.rollPeriod(key.id).catch((error: unknown) => {
        logger.error({ err: error, keyId: key.id }, 'starting a budget period failed; will retry');
      });
    }
  }, 1_000);
  periodTimer.unref();
  return {
    part: { admin, periods: { clock, roll: (id) => admin.rollPeriod(id) } },
    close: () => clearInterval(periodTimer),
  };
}
