/**
 * Builds the gateway as one request handler, from parts that each assemble themselves
 * (`createX(config, deps)` in their own folder, shared/assembly.ts). This only composes them, in
 * order, and closes them in reverse. It does not listen (index.ts does), so tests and the
 * benchmark get the same gateway.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { createBatches } from './batches/batches-part';
import { createBudget } from './billing/budget-part';
import type { SettlementLoop } from './billing/settlement';
import { createSettlement } from './billing/settlement-part';
import type { CatalogModel } from './catalog/catalog';
import { createCatalog } from './catalog/catalog-part';
import type { GatewayConfig } from './config';
import { createEvents } from './events/events-part';
import type { KeyAdmin } from './keys/key-admin';
import { createKeyAdmin, createKeys } from './keys/keys-part';
import { createLimits } from './limits/limits-part';
import { createLogger } from './logger';
import { createStats } from './operability/stats-part';
import { createTelemetry } from './operability/telemetry-part';
import { createPipeline } from './pipeline/pipeline-part';
import { createProviders } from './pipeline/providers-part';
import type { Provider } from './providers/provider';
import { allRouteFamilies } from './routes/all-routes';
import { createRequestHandler, type RequestHandler } from './routes/request-handler';
import { createResponsesSocket } from './routes/responses-socket';
import type { RouteFamily } from './routes/route-doc';
import type { GatewayParts } from './routes/route-kit';
import { Assembly } from './shared/assembly';
import type { Resolve } from './shared/public-address';
import { createStore } from './store/open-store';

export type Gateway = RequestHandler & {
  parts: GatewayParts;
  admin: KeyAdmin;
  settlement: SettlementLoop;
  /** Key events: `sweep` looks for balance and expiry crossings now (it also follows settlement). */
  events: { sweep(): Promise<number> };
  /** The HTTP server's `upgrade` listener: the Responses form over WebSocket, nothing else. */
  handleUpgrade: (request: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /** Closes the open WebSockets (idle now, busy after their response) at shutdown. */
  closeSockets(): void;
  /** Closes every part, the last made first: the store's connection last. */
  close(): Promise<void>;
};

export async function createGateway(
  config: GatewayConfig,
  options: {
    logger?: Logger;
    models?: CatalogModel[];
    providers?: Provider[];
    /** The route families to serve (default: all of them, routes/all-routes.ts). */
    routeFamilies?: readonly RouteFamily[];
    /** Names this process among instances sharing a store (default: a random id). */
    instanceId?: string;
    /** How webhook target names are resolved (tests pass a stub: no name leaves loopback). */
    resolve?: Resolve;
  } = {},
): Promise<Gateway> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const instanceId = options.instanceId ?? randomUUID();
  const base = { instanceId, logger };
  // Each part is made from those before it, and closed before them (shared/assembly.ts).
  const assembly = new Assembly();
  const add = assembly.add.bind(assembly);
  const { store } = await add(createStore(config, base));
  const { metrics, tracing } = await add(createTelemetry(config, base));
  const { rateLimits, redis, readiness } = await add(createLimits(config, base));
  const { budget, rows } = await add(createBudget(config, { ...base, store, redis }));
  const keys = await add(createKeys(config, { store, logger }));
  const { registry, clock, pepper } = keys;
  const { settlement, afterSettlement } = await add(
    createSettlement(config, { store, registry, budget, metrics, logger }),
  );
  const { resolve, models } = options;
  const events = await add(
    createEvents(config, { ...base, store, pepper, clock, afterSettlement, resolve }),
  );
  const { admin, periods } = await add(createKeyAdmin({ store, keys, events, logger }));
  const { catalog, names, presets } = await add(createCatalog(config, { store, logger, models }));
  const { providers } = await add(createProviders(config, options));
  const { availability } = await add(createStats(config, { store, logger }));
  const { pipeline, slots } = await add(
    createPipeline(config, {
      store,
      catalog,
      names,
      registry,
      periods,
      budget,
      rows,
      providers,
      metrics,
      tracing,
      availability,
      logger,
    }),
  );
  const { webhooks } = events;
  const core: GatewayParts = {
    config,
    store,
    catalog,
    names,
    presets,
    registry,
    admin,
    budget,
    rateLimits,
    instanceId,
    pipeline,
    slots,
    logger,
    metrics,
    availability,
    webhooks,
    clock,
    tracing,
    readiness,
  };
  const { batchRunner } = await add(createBatches(core, events));
  const parts: GatewayParts = { ...core, batchRunner };
  const requests = createRequestHandler(parts, options.routeFamilies ?? allRouteFamilies);
  const responsesSocket = createResponsesSocket(parts);
  return {
    ...requests,
    parts,
    admin,
    settlement,
    events: { sweep: events.sweep },
    handleUpgrade: responsesSocket.handleUpgrade,
    closeSockets: () => responsesSocket.close(),
    close: () => assembly.close(),
  };
}
