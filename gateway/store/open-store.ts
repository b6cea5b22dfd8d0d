/**
 * Opens the store the configuration names: PostgreSQL when `GATEWAY_DATABASE_URL` is set (loaded
 * only then, so the embedded default never pays for the driver), else SQLite at `GATEWAY_DB`.
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config';
import type { Assembled } from '../shared/assembly';
import { openSqliteStore } from './sqlite-store';
import type { GatewayStore } from './store';

export async function openStore(
  config: GatewayConfig,
  options: {
    autoCheckpoint?: boolean;
    /** SQLite: generation records are written from a thread of their own (the gateway's choice). */
    writerThread?: boolean;
    instanceId?: string;
    logger?: Logger;
  } = {},
): Promise<GatewayStore> {
  if (config.databaseUrl) {
    const { openPostgresStore } = await import('./postgres-store');
    return openPostgresStore(config.databaseUrl, {
      instanceId: options.instanceId,
      logger: options.logger,
      schema: schemaOf(config.databaseUrl),
      leaseMs: config.leaseMs,
    });
  }
  const logger = options.logger;
  return openSqliteStore(config.databasePath, {
    autoCheckpoint: options.autoCheckpoint,
    writerThread: options.writerThread,
    recordSync: config.sqliteSync,
    onWriterFailure: (error) =>
      logger?.error(
        { err: error },
        'the record-writing thread failed; records are written on the main thread from now on',
      ),
  });
}

/**
 * The schema a URL asks for the libpq way (`?options=-c search_path=<schema>`), so a deployment
 * (or a test run) can keep the gateway's tables apart; `public` otherwise.
 */
export function schemaOf(databaseUrl: string): string | undefined {
  const options = new URL(databaseUrl).searchParams.get('options') ?? '';
  return /(?:^|\s)-c\s*search_path=([A-Za-z_][A-Za-z0-9_]*)/.exec(options)?.[1];
}

/**
 * The gateway's store as a part: records written from a thread of their own, and (on SQLite) the
 * write-ahead log folded into the database once a second off the request path. Closed last: its
 * last checkpoint runs after every write, before the connection closes.
 */
export async function createStore(
  config: GatewayConfig,
  deps: { instanceId: string; logger: Logger },
): Promise<Assembled<{ store: GatewayStore }>> {
  const store = await openStore(config, { autoCheckpoint: false, writerThread: true, ...deps });
  const checkpoints = store.startCheckpoints?.(1_000, deps.logger) ?? null;
  return {
    part: { store },
    async close() {
      await checkpoints?.stop();
      await store.close();
    },
  };
}
