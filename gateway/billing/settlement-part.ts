/**
 * The settlement loop as a part. Closed after the events (it was made before them): its last
 * pass runs once the webhook sender has stopped, and settles what the last requests left pending.
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config';
import type { KeyRegistry } from '../keys/key-registry';
import type { Assembled } from '../shared/assembly';
import type { GatewayStore } from '../store/store';
import type { Budget } from './budget';
import { startSettlementLoop, type SettlementLoop } from './settlement';

export type SettlementPart = {
  settlement: SettlementLoop;
  /** Calls `listener` after each settlement pass that succeeded (the key events sweep then). */
  afterSettlement(listener: () => void): void;
};

export function createSettlement(
  config: GatewayConfig,
  deps: {
    store: GatewayStore;
    registry: KeyRegistry;
    budget: Budget;
    metrics: { noteSettlement(): void };
    logger: Logger;
  },
): Assembled<SettlementPart> {
  const { store, metrics, logger } = deps;
  const listeners: Array<() => void> = [];
  const settlement = startSettlementLoop({
    ...deps,
    intervalMs: config.settleIntervalMs,
    // Only where other instances may have left rows behind (store.shared).
    reclaimIntervalMs: store.shared ? Math.min(1_000, config.leaseMs) : null,
    onSettled: () => {
      metrics.noteSettlement();
      for (const listener of listeners) listener();
    },
  });
  return {
    part: { settlement, afterSettlement: (listener) => void listeners.push(listener) },
    async close() {
      settlement.stop();
      try {
        await settlement.settleNow();
      } catch (error) {
        logger.error({ err: error }, 'final settlement failed; charges stay pending');
      }
    },
  };
}
