/**
 * Builds the gateway: store, catalog, keys, ledger, pipeline and routes, as one request handler.
 * It does not listen (server.ts does), so tests and the benchmark get the same gateway.
 */
import { BatchRunner } from './batches/batch-runner';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { GenerationWriter } from './billing/generation-writer';
import type { Redis } from 'ioredis';
import type { Budget } from './billing/budget';
import { createRateLimits } from './limits/rate-limits';
import { fenceMarginMs, InflightRows, renewalIntervalMs } from './billing/inflight-rows';
import { MemoryBudget } from './billing/memory-budget';
import { StoreBudget } from './billing/store-budget';
import { startSettlementLoop, type SettlementLoop } from './billing/settlement';
import { calendarClock, type BudgetPeriods } from './keys/calendar-clock';
import { periodDue } from './keys/budget-period';
import { Catalog, type CatalogModel } from './catalog/catalog';
import type { GatewayConfig } from './config';
import { GatewayError } from './errors';
import { chatErrorBody } from './forms/openai/error-shape';

import { DEFAULT_CLIENT_SEND_TIMEOUT_MS, sendJson, setClientSendTimeout } from './http/respond';
import { unreadBodyLimiter, unreadBodyLimits } from '../contract/unread-body';
import { requestUrl, Router, type Registration, type RouteContext } from './http/router';
import { newTraceId } from './http/trace-id';
import { KeyEvents } from './events/key-events';
import { secretSeal } from './events/signing';
import { WebhookAdmin } from './events/webhook-admin';
import { WebhookSender } from './events/webhook-sender';
import { createKeyDigester, loadPepper } from './keys/key-material';
import { systemResolve, type Resolve } from './shared/public-address';
import { KeyAdmin } from './keys/key-admin';
import { KeyRegistry } from './keys/key-registry';
import { createLogger, loggablePath } from './logger';
import { GatewayMetrics } from './operability/gateway-metrics';
import { routeLabeller } from './operability/labels';
import { ProviderAvailability } from './operability/provider-availability';
import { buildCatalogModels } from './catalog/catalog-builder';
import { RoutingNames } from './catalog/routing-names';
import { StoredPresets } from './catalog/stored-presets';
import { providerSpeeds } from './operability/provider-speeds';
import { CircuitBreaker } from './pipeline/circuit-breaker';
import { InferencePipeline, type ProviderEntry } from './pipeline/inference-pipeline';
import { KeySlots } from './pipeline/key-slots';
import type { Provider } from './providers/provider';
import { createUpstreamProviders } from './providers/upstream-providers';
import { defaultBreaker, defaultRetry } from './providers/upstream/provider-config';
import { createSimulatedProvider } from './providers/simulated/simulated-provider';
import { allRouteFamilies } from './routes/all-routes';
import type { RouteFamily } from './routes/route-doc';
import { createResponsesSocket } from './routes/responses-socket';
import type { GatewayParts } from './routes/route-kit';
import { openStore } from './store/open-store';
import { RequestTiming } from './shared/request-timing';
import { createTracing } from './operability/tracing';
import { nanosToUsd } from './shared/money';
import type { GatewayStore } from './store/store';
import { randomUUID } from 'node:crypto';

/** How often provider stats collected in memory are added into the store. */
const AVAILABILITY_FLUSH_MS = 5_000;
/** How often the store's preset version is checked: another instance's change is served within. */
const PRESETS_POLL_MS = 500;

export type Gateway = {
  parts: GatewayParts;
  admin: KeyAdmin;
  settlement: SettlementLoop;
  /** Key events: `sweep` looks for balance and expiry crossings now (it also follows settlement). */
  events: { sweep(): Promise<number> };
  handle: (request: IncomingMessage, response: ServerResponse) => void;
  /** What the router holds, each registration with the operations it serves (for tests). */
  routes(): readonly Registration[];
  /**
   * Answers a request Node's parser refused before `handle` saw it (request line or headers too
   * long, malformed HTTP), still with a `cf-ray` and the gateway's error shape.
   */
  handleClientError: (error: NodeJS.ErrnoException, socket: Duplex) => void;
  /** The HTTP server's `upgrade` listener: the Responses form over WebSocket, nothing else. */
  handleUpgrade: (request: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /** Closes the open WebSockets (idle now, busy after their response) at shutdown. */
  closeSockets(): void;
  /** Stops the timers, settles what is pending and closes the database. */
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
  const store = await openStore(config, {
    autoCheckpoint: false,
    writerThread: true,
    instanceId,
    logger,
  });
  // The write-ahead log is folded into the database once a second, off the request path.
  const checkpoints = store.startCheckpoints?.(1_000, logger) ?? null;
  const pepper = loadPepper(config.databasePath, config.keyPepper);
  const digest = createKeyDigester(pepper);
  const registry = await KeyRegistry.open(store, digest);
  const seal = secretSeal(pepper);
  const resolve = options.resolve ?? systemResolve;
  const sender = new WebhookSender({
    store,
    seal,
    resolve,
    allowPrivate: config.webhooks.allowPrivate,
    instanceId,
    logger,
    retryBaseMs: config.webhooks.retryBaseMs,
    failureLimit: config.webhooks.failureLimit,
    timeoutMs: config.webhooks.deliveryTimeoutMs,
    pollMs: Math.min(1_000, config.webhooks.retryBaseMs),
  });
  const clock = calendarClock(config.clockOffsetMs);
  // Expiry events follow the same calendar as the expiry itself.
  const keyEvents = new KeyEvents(store, () => clock.nowSeconds());
  // Changes made in this process reach the registry at once (the next request sees them), and
  // the events they wrote to the outbox are sent at once.
  const admin = new KeyAdmin(
    store,
    digest,
    async () => {
      await registry.reload();
      sender.wake();
    },
    keyEvents.keyChanged,
    clock,
  );
  const periods: BudgetPeriods = { clock, roll: (id) => admin.rollPeriod(id) };
  // A depleted periodic key comes back at its boundary without a request to roll it, so the
  // workbench and the events see the new period within a second (keys/budget-period.ts).
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
  const webhooks = new WebhookAdmin({
    store,
    seal,
    resolve,
    allowPrivate: config.webhooks.allowPrivate,
    sender,
  });
  // Instances sharing a store may close each other's rows once a lease runs out: each stops its
  // own requests before that can happen (the fence, billing/inflight-rows.ts).
  const rows = new InflightRows(store, instanceId, config.leaseMs, logger, {
    fenceMarginMs: store.shared ? fenceMarginMs(config.leaseMs) : null,
  });
  // One process alone on its SQLite file: whatever in-flight rows it finds were left by its own
  // previous run, so they are closed now rather than after a lease.
  // One Redis connection serves the budget and the rate limits (loaded only when configured).
  const redis = config.redisUrl ? await openRedis(config.redisUrl, logger) : undefined;
  const budget = await openBudget(config, store, rows, logger, redis);
  const rateLimits = createRateLimits({
    redis,
    prefix: config.redisPrefix,
    defaultRpm: config.defaultRpm,
    defaultTpm: config.defaultTpm,
  });
  if (!store.shared) {
    await budget.reclaimed(await store.reclaimInflight(Number.MAX_SAFE_INTEGER));
  }
  const catalog = new Catalog(options.models ?? buildCatalogModels(config.providers));
  const upstream = createUpstreamProviders(config.providers, {
    allowPrivateHosts: config.allowPrivateImageUrls,
  });
  const simulatedEntries = (config.providers?.simulated ?? []).map((entry) =>
    createSimulatedProvider({ id: entry.id, tokensPerSecond: config.simulatedTokensPerSecond }),
  );
  const providers = new Map<string, ProviderEntry>();
  for (const provider of options.providers ?? [
    createSimulatedProvider({ tokensPerSecond: config.simulatedTokensPerSecond }),
    ...simulatedEntries,
  ]) {
    providers.set(provider.id, {
      provider,
      retry: defaultRetry,
      breaker: new CircuitBreaker(defaultBreaker),
    });
  }
  for (const { provider, config: providerConfig } of upstream) {
    providers.set(provider.id, {
      provider,
      retry: providerConfig.retry,
      breaker: new CircuitBreaker(providerConfig.breaker),
    });
  }
  // Read as each batch is written, once the pipeline exists: the batch's own requests are still
  // running then, so more running than the batch holds means others are waiting to be served.
  const writer = new GenerationWriter(store, (batch: number): boolean => pipeline.admitted > batch);
  const availability = new ProviderAvailability(store.providerStats, {
    retentionDays: config.statsRetentionDays,
    logger,
  });
  availability.start(AVAILABILITY_FLUSH_MS);
  // Read at scrape time only, once the pipeline exists.
  const metrics = new GatewayMetrics({
    reservationsHeld: () => pipeline.runningReservations().length,
    breakers: () =>
      [...providers.keys()].map((provider) => ({
        provider,
        open: pipeline.providerStatus(provider)?.status === 'cooling_down',
      })),
  });
  const tracing = createTracing(config.tracing, instanceId, (reason, count) =>
    metrics.countDroppedSpans(reason, count),
  );
  const names = new RoutingNames(catalog, config.providers);
  const presets = new StoredPresets(store.presets, names, logger);
  await presets.reload();
  const pipeline = new InferencePipeline({
    tracer: tracing.tracer,
    catalog,
    names,
    speeds: providerSpeeds(store.providerStats),
    registry,
    budget,
    rows,
    writer,
    providers,
    logger,
    onAttempt: (attempt, model) => {
      metrics.countAttempt(attempt);
      availability.attempt(model, attempt);
    },
    onRecorded: (record, generationMs) => {
      availability.recorded(record, generationMs);
      if (record.overheadMs != null) metrics.observeOverhead(record.form, record.overheadMs);
      metrics.countSpend(record.model, nanosToUsd(record.costNanos));
    },
    periods,
  });
  const slots = new KeySlots(config.maxConcurrentPerKey);
  const parts: GatewayParts = {
    config,
    store,
    catalog,
    names,
    presets,
    registry,
    admin,
    budget,
    instanceId,
    pipeline,
    slots,
    logger,
    metrics,
    availability,
    rateLimits,
    webhooks,
    clock,
    tracing,
    readiness: redis ? [{ name: 'redis', ping: async () => void (await redis.ping()) }] : [],
  };

  // Batches run in the background of every instance, after interactive traffic.
  const batchRunner = new BatchRunner(parts, async (batch, counts) => {
    if ((await keyEvents.batchEnded(batch, counts)) > 0) sender.wake();
  });
  parts.batchRunner = batchRunner;

  const router = new Router();
  const routeFamilies = options.routeFamilies ?? allRouteFamilies;
  for (const family of routeFamilies) family.add(router, parts);
  // /metrics labels each request by the route that served it, from the same list.
  const routeLabelOf = routeLabeller(routeFamilies);

  const settlement = startSettlementLoop({
    store,
    registry,
    budget,
    intervalMs: config.settleIntervalMs,
    reclaimIntervalMs: store.shared ? Math.min(1_000, config.leaseMs) : null,
    logger,
    onSettled: () => {
      metrics.noteSettlement();
      void sweepEvents();
    },
  });
  // Balance and expiry events, from the key rows as settled; one sweep at a time.
  let sweeping: Promise<number> | null = null;
  const sweepEvents = () =>
    (sweeping ??= keyEvents
      .sweep()
      .then((sent) => {
        if (sent > 0) sender.wake();
        return sent;
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'key events sweep failed; the next pass retries');
        return 0;
      })
      .finally(() => (sweeping = null)));
  sender.start();
  batchRunner.start();
  rows.start(renewalIntervalMs(config.leaseMs), (leaseExpiresAt) =>
    budget.renew(pipeline.runningReservations(), leaseExpiresAt),
  );
  // Changes another process commits (the command line, another instance) reach this one within
  // a quarter second; a full reload every few seconds is the safety net for a missed notice.
  const reloadKeys = () =>
    registry.reload().catch((error: unknown) => {
      logger.error({ err: error }, 'key refresh failed; will retry');
    });
  const stopWatching = store.watchKeyChanges(() => void reloadKeys());
  const resync = setInterval(() => void reloadKeys(), 5_000);
  resync.unref();
  const stopPresets = presets.watch(PRESETS_POLL_MS);

  const limitUnreadBody = unreadBodyLimiter(unreadBodyLimits(config.maxBodyBytes));
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const timing = new RequestTiming();
    const traceId = newTraceId();
    response.setHeader('cf-ray', traceId);
    let url: URL;
    try {
      url = requestUrl(request.url);
    } catch {
      url = new URL('http://gateway.invalid/');
    }
    const context: RouteContext = { request, response, url, traceId, timing, params: {} };
    if (config.clientSendTimeoutMs !== DEFAULT_CLIENT_SEND_TIMEOUT_MS)
      setClientSendTimeout(response, config.clientSendTimeoutMs);
    // A body the answer left unread is discarded only up to a bound (contract/unread-body.ts).
    limitUnreadBody(request, response);
    // `close` fires for every request, also when the client left before the answer ended.
    response.on('close', () => {
      logRequest(logger, context);
      metrics.observeRequest({
        route: routeLabelOf(context.operationIds ?? [], context.url.pathname),
        status: response.statusCode,
        clientLeft: !response.writableFinished,
        seconds: context.timing.elapsedMs() / 1000,
      });
    });

    const found = router.match(request.method ?? 'GET', url.pathname);
    if (found === null || found === 'wrong_method') {
      const error =
        found === null
          ? new GatewayError({
              status: 404,
              type: 'not_found',
              stage: 'validation',
              message: `No route ${request.method} ${url.pathname}.${url.pathname.startsWith('/v1/') ? ' List the models with GET /v1/models; see the README for every route.' : " The API's routes are under /v1."}`,
            })
          : new GatewayError({
              status: 405,
              type: 'invalid_request',
              stage: 'validation',
              message: `${request.method} is not allowed on ${url.pathname}.`,
            });
      const allow: Record<string, string> =
        found === null ? {} : { allow: router.allowedMethods(url.pathname).join(', ') };
      sendJson(response, error.status, chatErrorBody(error, traceId), allow);
      return;
    }
    context.params = found.params;
    context.operationIds = found.operationIds;
    Promise.resolve(found.handler(context)).catch((error: unknown) => {
      // Route families write their own errors; this is the last net for a bug in one of them.
      context.failure = error;
      if (!response.headersSent) {
        sendJson(
          response,
          500,
          chatErrorBody(
            new GatewayError({
              status: 500,
              type: 'internal_error',
              stage: 'internal',
              message: 'Internal error.',
            }),
            traceId,
          ),
        );
      } else response.end();
    });
  };

  const responsesSocket = createResponsesSocket(parts);

  const handleClientError = (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const status =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? 431
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 408
          : 400;
    const traceId = newTraceId();
    const message =
      status === 431
        ? 'The request line or headers are too large.'
        : 'The request is not valid HTTP.';
    const type = status === 431 ? 'request_too_large' : 'invalid_request';
    const body = JSON.stringify(
      chatErrorBody(new GatewayError({ status, type, stage: 'validation', message }), traceId),
    );
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncf-ray: ${traceId}\r\n` +
        `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `connection: close\r\n\r\n${body}`,
    );
    logger.info({ cfRay: traceId, status, code: error.code }, 'request refused by the HTTP parser');
  };

  return {
    parts,
    admin,
    settlement,
    events: { sweep: sweepEvents },
    handle,
    routes: () => router.registrations(),
    handleClientError,
    handleUpgrade: responsesSocket.handleUpgrade,
    closeSockets: () => responsesSocket.close(),
    async close() {
      // Lines running end and are kept first: their records go out with the writer's flush.
      await batchRunner.close();
      for (const { provider } of upstream) void provider.close();
      stopWatching();
      stopPresets();
      clearInterval(resync);
      clearInterval(periodTimer);
      rows.stop();
      await writer.flush();
      await rows.flush();
      await availability.close();
      settlement.stop();
      await sweeping;
      await sender.stop();
      try {
        await settlement.settleNow();
      } catch (error) {
        logger.error({ err: error }, 'final settlement failed; charges stay pending');
      }
      await budget.close();
      // Bounded by OTEL_BSP_EXPORT_TIMEOUT, even with a collector that hangs.
      await tracing.shutdown();
      await redis?.quit().catch(() => undefined);
      // Its last checkpoint runs after every write, before the store's connection closes.
      await checkpoints?.stop();
      await store.close();
    },
  };
}

function logRequest(logger: Logger, context: RouteContext): void {
  const fields = {
    cfRay: context.traceId,
    method: context.request.method,
    path: loggablePath(context.url),
    status: context.response.statusCode,
    ms: Math.round(context.timing.elapsedMs() * 100) / 100,
  };
  if (context.failure) logger.error({ ...fields, err: context.failure }, 'request failed');
  else if (!context.response.writableFinished)
    logger.info({ ...fields, clientLeft: true }, 'request ended early: the client left');
  else logger.info(fields, 'request');
}

/**
 * Where admission reserves (billing/budget.ts): Redis when configured, else the shared store
 * itself for PostgreSQL, else memory (one process owns its SQLite file).
 */
async function openBudget(
  config: GatewayConfig,
  store: GatewayStore,
  rows: InflightRows,
  logger: Logger,
  redis: Redis | undefined,
): Promise<Budget> {
  if (redis) {
    const { RedisBudget } = await import('./billing/redis-budget');
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

async function openRedis(url: string, logger: Logger): Promise<Redis> {
  const { connectRedis } = await import('./billing/redis-budget');
  return connectRedis(url, logger);
}
