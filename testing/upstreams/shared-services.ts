/**
 * The PostgreSQL and Redis that the scale-out tests share: the servers at GATEWAY_TEST_DATABASE_URL
 * and GATEWAY_TEST_REDIS_URL (the local ones by default), a schema and a Redis key prefix of each
 * test run's own, removed at the end. When a server does not answer, a test file that needs it
 * fails in CI (`CI=true`) and is skipped, loudly, elsewhere: never silently.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';

export const testDatabaseUrl =
  process.env.GATEWAY_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export const testRedisUrl = process.env.GATEWAY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A prefix no other run uses. */
export function testRedisPrefix(name: string): string {
  return `gateway-test:${name}:${process.pid}:${randomUUID().slice(0, 8)}:`;
}

/**
 * Whether Redis answers. In CI a missing Redis throws (the test file fails, naming the URL);
 * elsewhere it warns and the caller skips its tests.
 */
export async function redisAvailable(what: string): Promise<boolean> {
  const probe = new Redis(testRedisUrl, {
    lazyConnect: true,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch (error) {
    const message = `Redis at ${testRedisUrl} does not answer (${String(error)}): ${what} needs it.`;
    if (process.env.CI === 'true') throw new Error(message, { cause: error });
    console.warn(`\n*** SKIPPED: ${message} Start Redis, or set GATEWAY_TEST_REDIS_URL. ***\n`);
    return false;
  } finally {
    probe.disconnect();
  }
}

/** A client for tests: fails fast instead of retrying for ever. */
export function testRedisClient(): Redis {
  return new Redis(testRedisUrl, { maxRetriesPerRequest: 1 });
}

/** Deletes every key under `prefix`. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}

/**
 * Whether PostgreSQL answers. In CI a missing server throws (the test file fails, naming the
 * URL); elsewhere it warns and the caller skips its tests.
 */
export async function postgresAvailable(what: string): Promise<boolean> {
  const probe = new pg.Client({
    connectionString: testDatabaseUrl,
    connectionTimeoutMillis: 1_000,
  });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    await probe.query('SELECT 1');
    return true;
  } catch (error) {
    const message = `PostgreSQL at ${testDatabaseUrl} does not answer (${String(error)}): ${what} needs it.`;
    if (process.env.CI === 'true') throw new Error(message, { cause: error });
    console.warn(
      `\n*** SKIPPED: ${message} Start PostgreSQL, or set GATEWAY_TEST_DATABASE_URL. ***\n`,
    );
    return false;
  } finally {
    await probe.end().catch(() => undefined);
  }
}

export type TestSchema = {
  /** A database URL whose connections use the schema (libpq `options=-c search_path=…`). */
  url: string;
  schema: string;
  /** Runs one query in the schema. */
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(
    sql: string,
    values?: unknown[],
  ): Promise<T[]>;
  drop(): Promise<void>;
};

/** A fresh schema for one test file; `drop` removes it and everything in it. */
export async function createTestSchema(label: string): Promise<TestSchema> {
  const schema = `${label}_${randomBytes(5).toString('hex')}`.toLowerCase();
  const client = new pg.Client({ connectionString: testDatabaseUrl });
  await client.connect();
  await client.query(`CREATE SCHEMA "${schema}"`);
  await client.query(`SET search_path TO "${schema}"`);
  const separator = testDatabaseUrl.includes('?') ? '&' : '?';
  return {
    url: `${testDatabaseUrl}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    schema,
    query: async (sql, values) => (await client.query(sql, values)).rows,
    drop: async () => {
      await client.query(`DROP SCHEMA "${schema}" CASCADE`);
      await client.end();
    },
  };
}
