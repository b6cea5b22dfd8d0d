/**
 * The budget as a part: where admission reserves, and the in-flight rows it checkpoints to. The
 * rows are started and flushed by the pipeline's part, which holds the running requests.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config';
import type { Assembled } from '../shared/assembly';
import type { GatewayStore } from '../store/store';
import type { Budget } from './budget';
import { fenceMarginMs, InflightRows } from './inflight-rows';
import { MemoryBudget } from './memory-budget';
import { StoreBudget } from './store-budget';

export async function createBudget(
  config: GatewayConfig,
  deps: { store: GatewayStore; redis: Redis | undefined; instanceId: string; logger: Logger },
): Promise<Assembled<{ budget: Budget; rows: InflightRows }>> {
  const { store, instanceId, logger } = deps;
  // Instances sharing a store may close each other's rows once a lease runs out: each stops its
  // own requests before that can happen (the fence, inflight-rows.ts).
  const rows = new InflightRows(store, instanceId, config.leaseMs, logger, {
    fenceMarginMs: store.shared ? fenceMarginMs(config.leaseMs) : null,
  });
  const budget = await openBudget(config, deps, rows);
  // One process alone on its store: whatever in-flight rows it finds were left by its own
  // previous run, so they are closed now rather than after a lease.
  if (!store.shared) await budget.reclaimed(await store.reclaimInflight(Number.MAX_SAFE_INTEGER));
  return { part: { budget, rows }, close: () => budget.close() };
}

/**
 * Where admission reserves (budget.ts): Redis when configured, else the shared store itself,
 * else memory (one process owns its store).
 */
async function openBudget(
  config: GatewayConfig,
  { store, redis, logger }: { store: GatewayStore; redis: Redis | undefined; logger: Logger },
  rows: InflightRows,
): Promise<Budget> {
  if (redis) {
    const { RedisBudget } = await import('./redis-budget');
    return new RedisBudget({
      redis,
      store,
      rows,
      prefix: config.redisPrefix,
      leaseMs: config.leaseMs,
      logger,
    });
  }
  if (store.shared) return new StoreBudget(store, rows);
  return new MemoryBudget(await store.pendingByFundingKey(), rows);
}
