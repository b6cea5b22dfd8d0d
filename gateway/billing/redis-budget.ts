/**
 * The budget of instances sharing Redis (billing/budget.ts): every admission is one Lua script,
 * so Redis serialises the admissions to one funding key across every instance, and PostgreSQL is
 * not touched before the answer. Why holds outlive their rows (`holdSlackMs`):
 * docs/decisions/0009-leases-checkpoints-and-the-fence.md
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { GatewayStore, InflightRow, KeyRow, ReclaimResult } from '../store/store';
import type { Budget, Charge, Reservation, Worstcase } from './budget';
import type { InflightRows } from './inflight-rows';
import { insufficientBalance } from './memory-budget';
import type { Nanos } from '../shared/money';
import { ceilingNanos } from '../keys/budget-period';

/**
 * Frees the reservations of F whose lease ended before ARGV[now] (at most 1000 per call; the
 * next call frees the rest). KEYS: 1 budget hash, 2 leases, 3 holds.
 */
const freeExpired = `
local function freeExpired(now)
  local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 1000)
  if #expired == 0 then return end
  local holds = redis.call('HMGET', KEYS[3], unpack(expired))
  local freed = 0
  for _, nanos in ipairs(holds) do
    if nanos then freed = freed + tonumber(nanos) end
  end
  redis.call('ZREM', KEYS[2], unpack(expired))
  redis.call('HDEL', KEYS[3], unpack(expired))
  if freed > 0 then redis.call('HINCRBY', KEYS[1], 'reserved', -freed) end
end
`;

/**
 * Admission. ARGV: 1 id, 2 nanos, 3 ceiling (limit + grace), 4 now, 5 lease end, 6 reseed age.
 * Returns {status, charged, reserved, stale}: status 0 admitted, 1 refused (figures before this
 * request), 2 `charged` is missing (seed it from the store, then try again). `stale` says the
 * seed is older than the reseed age (refresh it from the store, in the background).
 */
const reserveScript = `${freeExpired}
freeExpired(ARGV[4])
local figures = redis.call('HMGET', KEYS[1], 'charged', 'reserved', 'seededAt')
if not figures[1] then return {2, 0, 0, 0} end
local charged = tonumber(figures[1])
local reserved = tonumber(figures[2] or '0')
local stale = 0
if tonumber(ARGV[4]) - tonumber(figures[3] or '0') > tonumber(ARGV[6]) then stale = 1 end
local nanos = tonumber(ARGV[2])
if charged + reserved + nanos > tonumber(ARGV[3]) then return {1, charged, reserved, stale} end
if redis.call('HSETNX', KEYS[3], ARGV[1], ARGV[2]) == 0 then
  return redis.error_reply('reservation ' .. ARGV[1] .. ' is already held')
end
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
redis.call('HINCRBY', KEYS[1], 'reserved', nanos)
return {0, charged, reserved + nanos, stale}
`;

/**
 * Frees reservation ARGV[1] if it is still held, and adds ARGV[2] to `charged` only if `charged`
 * exists (a missing one is seeded from the store, which already holds this cost). Used for a
 * charge, a release (cost 0) and a reclaimed record; a record that replaced its reclaimed one
 * adds the difference, which may be negative. Returns 1 when it freed a hold.
 */
const freeScript = `
local nanos = redis.call('HGET', KEYS[3], ARGV[1])
if nanos then
  redis.call('HDEL', KEYS[3], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('HINCRBY', KEYS[1], 'reserved', -tonumber(nanos))
end
if tonumber(ARGV[2]) ~= 0 and redis.call('HEXISTS', KEYS[1], 'charged') == 1 then
  redis.call('HINCRBY', KEYS[1], 'charged', ARGV[2])
end
if nanos then return 1 end
return 0
`;

/**
 * Seeds `charged` with ARGV[1] (the store's consumption + pending) at ARGV[2] (now): only if it
 * is missing, or always when ARGV[3] is '1' (a refresh). `reserved` is recomputed from the
 * holds, which are its source of truth. Returns 1 when it wrote.
 */
const seedScript = `
if ARGV[3] ~= '1' and redis.call('HEXISTS', KEYS[1], 'charged') == 1 then return 0 end
local total = 0
for _, nanos in ipairs(redis.call('HVALS', KEYS[3])) do total = total + tonumber(nanos) end
redis.call('HSET', KEYS[1], 'charged', ARGV[1], 'reserved', total, 'seededAt', ARGV[2])
return 1
`;

/**
 * Renews reservation ARGV[1] to ARGV[3] only while it is held and its lease has not ended
 * (ARGV[2], now): a lapsed hold may already be freed, its room taken. Returns 1 when renewed.
 */
const renewScript = `
local lease = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not lease or tonumber(lease) < tonumber(ARGV[2]) then return 0 end
if tonumber(ARGV[3]) > tonumber(lease) then redis.call('ZADD', KEYS[2], 'XX', ARGV[3], ARGV[1]) end
return 1
`;

/** Frees expired reservations, then returns `reserved`. ARGV: 1 now. */
const reservedScript = `${freeExpired}
freeExpired(ARGV[1])
return tonumber(redis.call('HGET', KEYS[1], 'reserved') or '0')
`;

type ScriptArgument = string | number;
/**
 * Per funding key F (in braces, so a Redis Cluster keeps the three in one slot):
 * - `{prefix}budget:{F}`, a hash: `charged` (consumption + pending as the store knew them when
 *   seeded, plus every charge since), `reserved` (the sum of the holds) and `seededAt` (Unix ms);
 * - `{prefix}budget-leases:{F}`, a sorted set: reservation id → lease end (Unix ms);
 * - `{prefix}budget-holds:{F}`, a hash: reservation id → nanos held.
 * A reservation whose lease ended is freed by the next script that looks at the key.
 */
type Keys = [budget: string, leases: string, holds: string];

/** The scripts as commands on the client (ioredis sends EVALSHA, and the script on NOSCRIPT). */
type BudgetCommands = {
  gatewayBudgetReserve(
    ...args: [...Keys, ...ScriptArgument[]]
  ): Promise<[number, number, number, number]>;
  gatewayBudgetFree(...args: [...Keys, ...ScriptArgument[]]): Promise<number>;
  gatewayBudgetSeed(...args: [...Keys, ...ScriptArgument[]]): Promise<number>;
  gatewayBudgetReserved(...args: [...Keys, ...ScriptArgument[]]): Promise<number>;
  gatewayBudgetRenew(...args: [...Keys, ...ScriptArgument[]]): Promise<number>;
};

const NEEDS_SEED = 2;
const REFUSED = 1;

export type RedisBudgetOptions = {
  redis: Redis;
  store: GatewayStore;
  rows: InflightRows;
  /** Prefix of every key this budget writes (`gateway:` in production; one per test run). */
  prefix: string;
  /** Lease of a reservation whose in-flight row names none. */
  leaseMs: number;
  /**
   * How long a hold outlives its in-flight row's lease, so that a reclaim (every second, on every
   * instance) counts a dead request's charge before its room is freed. Default half the lease.
   */
  holdSlackMs?: number;
  /**
   * How old a seed may get before it is refreshed from the store, in the background. The refresh
   * heals the one gap Redis cannot see: an instance that died between committing a record and
   * counting its charge here. Default one minute.
   */
  reseedMs?: number;
  logger?: Logger;
  /** Closes the client on `close()` (when this budget opened it). */
  ownsClient?: boolean;
};

export class RedisBudget implements Budget {
  private readonly redis: Redis;
  private readonly commands: BudgetCommands;
  private readonly seeding = new Map<string, Promise<void>>();
  private readonly reseedMs: number;
  private readonly holdSlackMs: number;

  constructor(private readonly options: RedisBudgetOptions) {
    this.redis = options.redis;
    this.reseedMs = options.reseedMs ?? 60_000;
    this.holdSlackMs = options.holdSlackMs ?? Math.floor(options.leaseMs / 2);
    const define = (name: keyof BudgetCommands, lua: string) =>
      this.redis.defineCommand(name, { numberOfKeys: 3, lua });
    define('gatewayBudgetReserve', reserveScript);
    define('gatewayBudgetFree', freeScript);
    define('gatewayBudgetSeed', seedScript);
    define('gatewayBudgetReserved', reservedScript);
    define('gatewayBudgetRenew', renewScript);
    this.commands = this.redis as unknown as BudgetCommands;
  }

  /** The Redis keys of one funding key (see the header). */
  keysOf(fundingKeyId: string): Keys {
    const { prefix } = this.options;
    return [
      `${prefix}budget:{${fundingKeyId}}`,
      `${prefix}budget-leases:{${fundingKeyId}}`,
      `${prefix}budget-holds:{${fundingKeyId}}`,
    ];
  }

  async reserve(funding: KeyRow, worstcase: Worstcase, row: InflightRow): Promise<Reservation> {
    const keys = this.keysOf(funding.id);
    const ceiling = ceilingNanos(funding);
    // A second NEEDS_SEED means the keys were deleted again between seed and retry: rare enough
    // that two retries cover it.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const now = Date.now();
      const leaseEnd =
        (row.leaseExpiresAt > now ? row.leaseExpiresAt : now + this.options.leaseMs) +
        this.holdSlackMs;
      const [status, charged, reserved, stale] = await this.commands.gatewayBudgetReserve(
        ...keys,
        row.id,
        worstcase.nanos,
        ceiling,
        now,
        leaseEnd,
        this.reseedMs,
      );
      if (status === NEEDS_SEED) {
        await this.seed(funding.id, false);
        continue;
      }
      if (stale === 1) this.refreshInBackground(funding.id);
      if (status === REFUSED) {
        throw insufficientBalance(worstcase, ceiling - charged - reserved, reserved > 0);
      }
      // The reservation lives here, so the row holds nothing in the store's own counter.
      this.options.rows.open({ ...row, reservedNanos: 0 });
      return { id: row.id, fundingKeyId: funding.id, nanos: worstcase.nanos, released: false };
    }
    throw new Error(`The budget of ${funding.id} could not be seeded in Redis.`);
  }

  /** Called once the record is committed: frees the hold (if its lease has not already) and counts the cost. */
  async charged(reservation: Reservation, charge: Charge): Promise<void> {
    reservation.released = true;
    await this.commands.gatewayBudgetFree(
      ...this.keysOf(reservation.fundingKeyId),
      reservation.id,
      charge.chargedNanos,
    );
  }

  async release(reservation: Reservation): Promise<void> {
    if (reservation.released) return;
    reservation.released = true;
    // The row first: once it is gone no reclaim can charge it, and the room may be freed. If it
    // cannot be dropped, the hold stays until its lease runs out, after the row's.
    await this.options.rows.drop(reservation.id);
    await this.commands.gatewayBudgetFree(
      ...this.keysOf(reservation.fundingKeyId),
      reservation.id,
      0,
    );
  }

  /**
   * Moves the lease end of each running reservation (plus the slack); one whose lease already
   * ran out is not renewed (another instance may have freed it and spent its room): its id is
   * returned.
   */
  async renew(reservations: Reservation[], leaseExpiresAt: number): Promise<ReadonlySet<string>> {
    const running = reservations.filter((reservation) => !reservation.released);
    if (running.length === 0) return new Set();
    const pipeline = this.redis.pipeline() as unknown as BudgetPipeline;
    const now = Date.now();
    for (const reservation of running) {
      pipeline.gatewayBudgetRenew(
        ...this.keysOf(reservation.fundingKeyId),
        reservation.id,
        now,
        leaseExpiresAt + this.holdSlackMs,
      );
    }
    const results = await pipeline.exec();
    throwFirstFailure(results);
    return new Set(
      running
        .filter((_, index) => results?.[index]?.[1] !== 1)
        .map((reservation) => reservation.id),
    );
  }

  /** `charged` counts pending already: moving it into consumption changes nothing here. */
  settled(): void {}

  /**
   * A dead instance's requests, closed by the store as records: their costs are counted, and
   * their holds (same ids) freed if no script has freed them yet.
   */
  async reclaimed(result: ReclaimResult): Promise<void> {
    if (result.records.length === 0) return;
    const pipeline = this.redis.pipeline() as unknown as BudgetPipeline;
    for (const record of result.records) {
      pipeline.gatewayBudgetFree(...this.keysOf(record.fundingKeyId), record.id, record.costNanos);
    }
    throwFirstFailure(await pipeline.exec());
  }

  async reservedFor(fundingKeyId: string): Promise<Nanos> {
    return this.commands.gatewayBudgetReserved(...this.keysOf(fundingKeyId), Date.now());
  }

  /** `charged` as Redis holds it now, or null when it is not seeded (for tests and diagnostics). */
  async chargedFor(fundingKeyId: string): Promise<Nanos | null> {
    const value = await this.redis.hget(this.keysOf(fundingKeyId)[0], 'charged');
    return value === null ? null : Number(value);
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.seeding.values());
    if (this.options.ownsClient) await this.redis.quit();
  }

  /**
   * Writes `charged` = consumption + pending, read from the store with the funding key's row
   * locked (`forUpdate`) and written to Redis before the transaction commits. While the row is
   * locked no record can add to pending, so no charge can fall between the read and the write
   * and be lost. A record committed just before the read, whose `charged()` reaches Redis only
   * after the write, is counted twice until the next refresh: conservative (the key may be
   * refused a little early). The one exception is a record that replaced its reclaimed closure
   * for less (a negative difference, rare twice over): subtracted twice until the refresh, it
   * lets the key spend that much more for up to a minute. One seed per funding key at a time per
   * process.
   */
  private seed(fundingKeyId: string, refresh: boolean): Promise<void> {
    const running = this.seeding.get(fundingKeyId);
    if (running) return running;
    const { store } = this.options;
    const seeding = store
      .transaction(async () => {
        const figures = await store.fundingFigures(fundingKeyId, { forUpdate: true });
        if (!figures) throw new Error(`Funding key ${fundingKeyId} is not in the store.`);
        await this.commands.gatewayBudgetSeed(
          ...this.keysOf(fundingKeyId),
          figures.consumptionNanos + figures.pendingNanos,
          Date.now(),
          refresh ? '1' : '0',
        );
      })
      .finally(() => this.seeding.delete(fundingKeyId));
    this.seeding.set(fundingKeyId, seeding);
    return seeding;
  }

  private refreshInBackground(fundingKeyId: string): void {
    if (this.seeding.has(fundingKeyId)) return;
    this.seed(fundingKeyId, true).catch((error: unknown) => {
      // The seed stays as it was (still exact unless an instance died mid-charge); next time.
      this.options.logger?.warn(
        { err: error, fundingKeyId },
        'budget refresh from the store failed',
      );
    });
  }
}

type BudgetPipeline = {
  gatewayBudgetFree(...args: [...Keys, ...ScriptArgument[]]): BudgetPipeline;
  gatewayBudgetRenew(...args: [...Keys, ...ScriptArgument[]]): BudgetPipeline;
  exec(): Promise<Array<[Error | null, unknown]> | null>;
};

function throwFirstFailure(results: Array<[Error | null, unknown]> | null): void {
  const failure = results?.find(([error]) => error !== null)?.[0];
  if (failure) throw failure;
}

/**
 * A Redis client for the gateway's shared counters. Commands wait for a reconnect briefly, then
 * fail (the request gets a 500 and the client may retry) rather than hang.
 */
export function connectRedis(url: string, logger?: Logger): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 2, connectTimeout: 5_000 });
  redis.on('error', (error: unknown) => logger?.warn({ err: error }, 'redis connection error'));
  return redis;
}

/** The budget of a gateway configured with GATEWAY_REDIS_URL (app.ts). */
export function openRedisBudget(options: {
  url: string;
  store: GatewayStore;
  rows: InflightRows;
  leaseMs: number;
  logger: Logger;
  prefix?: string;
}): RedisBudget {
  return new RedisBudget({
    redis: connectRedis(options.url, options.logger),
    store: options.store,
    rows: options.rows,
    prefix: options.prefix ?? 'gateway:',
    leaseMs: options.leaseMs,
    logger: options.logger,
    ownsClient: true,
  });
}
