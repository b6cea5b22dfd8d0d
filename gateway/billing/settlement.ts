/**
 * Asynchronous settlement (spec 2.1, 8): pending charges move into `consumption_usd` on a timer,
 * so the balance lags recent requests by up to one interval, as the spec says it may.
 */
import type { Logger } from 'pino';
import type { KeyRegistry } from '../keys/key-registry';
import type { GatewayStore } from '../store/store';
import type { Ledger } from './ledger';

export type SettlementLoop = { settleNow(): Map<string, number>; stop(): void };

export function startSettlementLoop(options: {
  store: GatewayStore;
  registry: KeyRegistry;
  ledger: Ledger;
  intervalMs: number;
  logger: Logger;
  now?: () => number;
}): SettlementLoop {
  const { store, registry, ledger, logger } = options;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));

  const settleNow = () => {
    const moved = store.settlePending(now());
    registry.addConsumption(moved);
    ledger.settled(moved);
    if (moved.size > 0) logger.debug({ keys: moved.size }, 'settled pending charges');
    return moved;
  };

  const timer = setInterval(() => {
    try {
      settleNow();
    } catch (error) {
      // A busy database is retried on the next tick; the charges stay pending, nothing is lost.
      logger.error({ err: error }, 'settlement failed; will retry');
    }
  }, options.intervalMs);
  timer.unref();

  return { settleNow, stop: () => clearInterval(timer) };
}
