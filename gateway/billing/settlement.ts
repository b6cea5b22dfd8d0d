/**
 * Asynchronous settlement: pending charges move into `consumption_usd` on a timer, so the
 * balance lags recent requests by up to one interval (a lag the balance's readers accept). The same
 * timer closes in-flight rows whose instance died (their lease ended) as `ended_early` records.
 * With several instances on one store, any may run it: the store lets one settle at a time and
 * closes each dead row once.
 */
import type { Logger } from 'pino';
import type { KeyRegistry } from '../keys/key-registry';
import type { GatewayStore } from '../store/store';
import type { Budget } from './budget';

export type SettlementLoop = {
  settleNow(): Promise<Map<string, number>>;
  /** Closes expired in-flight rows now; returns how many records that wrote. */
  reclaimNow(): Promise<number>;
  stop(): void;
};

export function startSettlementLoop(options: {
  store: GatewayStore;
  registry: KeyRegistry;
  budget: Budget;
  intervalMs: number;
  /**
   * How often dead instances' in-flight rows are looked for; null never (one process alone on
   * its store: any row whose lease ran out is its own, of a request still running, and what its
   * previous run left is closed at start-up).
   */
  reclaimIntervalMs?: number | null;
  logger: Logger;
  now?: () => number;
  /** Called after each settlement pass that succeeded (the metrics note its time). */
  onSettled?: () => void;
}): SettlementLoop {
  const { store, registry, budget, logger } = options;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));

  let settling: Promise<Map<string, number>> | null = null;
  const settleNow = () => {
    // One settlement at a time in this process; the store keeps other processes apart.
    settling ??= (async () => {
      try {
        const moved = await store.settlePending(now());
        // Read back rather than added here: another instance's notice may already have
        // reloaded the keys, and adding on top of that would count the settlement twice.
        if (moved.size > 0) await registry.reload();
        budget.settled(moved);
        if (moved.size > 0) logger.debug({ keys: moved.size }, 'settled pending charges');
        options.onSettled?.();
        return moved;
      } finally {
        settling = null;
      }
    })();
    return settling;
  };

  const reclaimNow = async () => {
    const result = await store.reclaimInflight(Date.now());
    await budget.reclaimed(result);
    if (result.records.length > 0) {
      logger.warn(
        { records: result.records.length },
        'closed in-flight requests of an instance that stopped: charged what they had delivered',
      );
    }
    return result.records.length;
  };

  const settleTimer = setInterval(() => {
    // A busy database is retried on the next tick; the charges stay pending, nothing is lost.
    settleNow().catch((error: unknown) =>
      logger.error({ err: error }, 'settlement failed; will retry'),
    );
  }, options.intervalMs);
  settleTimer.unref();
  const reclaimTimer =
    options.reclaimIntervalMs === null
      ? undefined
      : setInterval(() => {
          reclaimNow().catch((error: unknown) =>
            logger.error({ err: error }, 'closing dead in-flight requests failed; will retry'),
          );
        }, options.reclaimIntervalMs ?? 1_000);
  reclaimTimer?.unref();

  return {
    settleNow,
    reclaimNow,
    stop: () => {
      clearInterval(settleTimer);
      clearInterval(reclaimTimer);
    },
  };
}
