/**
 * Builds the gateway: store, catalog, keys, ledger, pipeline and routes, as one request handler.
 * It does not listen (server.ts does), so tests and the benchmark get the same gateway.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { GenerationWriter } from './billing/generation-writer';
import { Ledger } from './billing/ledger';
import { startSettlementLoop, type SettlementLoop } from './billing/settlement';
import { Catalog, type CatalogModel } from './catalog/catalog';
import type { GatewayConfig } from './config';
import { GatewayError } from './errors';
import { chatErrorBody } from './forms/openai/error-shape';

import { sendJson } from './http/respond';
import { Router, type RouteContext } from './http/router';
import { newTraceId } from './http/trace-id';
import { createKeyDigester, loadPepper } from './keys/key-material';
import { KeyAdmin } from './keys/key-admin';
import { KeyRegistry } from './keys/key-registry';
import { createLogger, loggablePath } from './logger';
import { buildCatalogModels } from './catalog/catalog-builder';
import { CircuitBreaker } from './pipeline/circuit-breaker';
import { InferencePipeline, type ProviderEntry } from './pipeline/inference-pipeline';
import { KeySlots } from './pipeline/key-slots';
import type { Provider } from './providers/provider';
import { createUpstreamProviders } from './providers/upstream-providers';
import { defaultBreaker, defaultRetry } from './providers/upstream/provider-config';
import { createSimulatedProvider } from './providers/simulated/simulated-provider';
import { addActivityRoutes } from './routes/activity';
import { addAdminKeyRoutes } from './routes/admin-keys';
import { addBalanceRoutes } from './routes/balance';
import { addChatCompletionRoutes } from './routes/chat-completions';
import { addGenerationRoutes } from './routes/generation';
import { addKeyRoutes } from './routes/keys';
import { addKeyStatusRoutes } from './routes/key-status';
import { addModelEndpointRoutes } from './routes/model-endpoints';
import { addModelRoutes } from './routes/models';
import type { GatewayParts } from './routes/route-kit';
import { openSqliteStore } from './store/sqlite-store';

/** Route families that other modules (the vendor-native forms) add to the router. */
export type RouteFamily = (router: Router, parts: GatewayParts) => void;

export type Gateway = {
  parts: GatewayParts;
  admin: KeyAdmin;
  settlement: SettlementLoop;
  handle: (request: IncomingMessage, response: ServerResponse) => void;
  /**
   * Answers a request Node's parser refused before `handle` saw it (request line or headers too
   * long, malformed HTTP), still with a `cf-ray` and the gateway's error shape.
   */
  handleClientError: (error: NodeJS.ErrnoException, socket: Duplex) => void;
  /** Stops the timers, settles what is pending and closes the database. */
  close(): void;
};

export const coreRouteFamilies: RouteFamily[] = [
  addModelRoutes,
  addModelEndpointRoutes,
  addChatCompletionRoutes,
  addBalanceRoutes,
  addKeyStatusRoutes,
  addGenerationRoutes,
  addActivityRoutes,
  addKeyRoutes,
  addAdminKeyRoutes,
];

export function createGateway(
  config: GatewayConfig,
  options: {
    logger?: Logger;
    models?: CatalogModel[];
    providers?: Provider[];
    routeFamilies?: RouteFamily[];
  } = {},
): Gateway {
  const logger = options.logger ?? createLogger(config.logLevel);
  const store = openSqliteStore(config.databasePath, { autoCheckpoint: false });
  // The write-ahead log is folded into the database once a second, off the request path; PASSIVE
  // never waits for (or blocks) a writer.
  const checkpoints = setInterval(() => {
    try {
      store.checkpoint();
    } catch (error) {
      logger.warn({ err: error }, 'checkpoint failed; will retry');
    }
  }, 1_000);
  checkpoints.unref();
  const digest = createKeyDigester(loadPepper(config.databasePath, config.keyPepper));
  const registry = new KeyRegistry(store, digest);
  // Changes made in this process reach the registry at once (the next request sees them).
  const admin = new KeyAdmin(store, digest, () => registry.reload());
  const ledger = new Ledger(store.pendingByFundingKey());
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
  const writer = new GenerationWriter(store);
  const pipeline = new InferencePipeline({ catalog, registry, ledger, writer, providers, logger });
  const slots = new KeySlots(config.maxConcurrentPerKey);
  const parts: GatewayParts = {
    config,
    store,
    catalog,
    registry,
    admin,
    ledger,
    pipeline,
    slots,
    logger,
  };

  const router = new Router();
  for (const addRoutes of options.routeFamilies ?? coreRouteFamilies) addRoutes(router, parts);

  const settlement = startSettlementLoop({
    store,
    registry,
    ledger,
    intervalMs: config.settleIntervalMs,
    logger,
  });
  // Changes the command line commits reach this process within a quarter second.
  const refresh = setInterval(() => {
    try {
      registry.refreshIfChanged();
    } catch (error) {
      logger.error({ err: error }, 'key refresh failed; will retry');
    }
  }, 250);
  refresh.unref();

  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const startedAt = performance.now();
    const traceId = newTraceId();
    response.setHeader('cf-ray', traceId);
    let url: URL;
    try {
      // A path is read as a path: `//v1/models` must not become host `v1` and path `/models`.
      const target = request.url ?? '/';
      url = target.startsWith('/')
        ? new URL(`http://gateway.invalid${target}`)
        : new URL(target, 'http://gateway.invalid');
    } catch {
      url = new URL('http://gateway.invalid/');
    }
    const context: RouteContext = { request, response, url, traceId, startedAt, params: {} };
    // `close` fires for every request, also when the client left before the answer ended.
    response.on('close', () => logRequest(logger, context));

    const found = router.match(request.method ?? 'GET', url.pathname);
    if (found === null || found === 'wrong_method') {
      const error =
        found === null
          ? new GatewayError(
              404,
              'not_found',
              'validation',
              `No route ${request.method} ${url.pathname}.${url.pathname.startsWith('/v1/') ? ' List the models with GET /v1/models; see the README for every route.' : " The API's routes are under /v1."}`,
            )
          : new GatewayError(
              405,
              'invalid_request',
              'validation',
              `${request.method} is not allowed on ${url.pathname}.`,
            );
      const allow: Record<string, string> =
        found === null ? {} : { allow: router.allowedMethods(url.pathname).join(', ') };
      sendJson(response, error.status, chatErrorBody(error, traceId), allow);
      return;
    }
    context.params = found.params;
    Promise.resolve(found.handler(context)).catch((error: unknown) => {
      // Route families write their own errors; this is the last net for a bug in one of them.
      context.failure = error;
      if (!response.headersSent) {
        sendJson(
          response,
          500,
          chatErrorBody(
            new GatewayError(500, 'internal_error', 'internal', 'Internal error.'),
            traceId,
          ),
        );
      } else response.end();
    });
  };

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
      chatErrorBody(new GatewayError(status, type, 'validation', message), traceId),
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
    handle,
    handleClientError,
    close() {
      for (const { provider } of upstream) void provider.close();
      clearInterval(refresh);
      clearInterval(checkpoints);
      writer.flush();
      settlement.stop();
      settlement.settleNow();
      store.close();
    },
  };
}

function logRequest(logger: Logger, context: RouteContext): void {
  const fields = {
    cfRay: context.traceId,
    method: context.request.method,
    path: loggablePath(context.url),
    status: context.response.statusCode,
    ms: Math.round((performance.now() - context.startedAt) * 100) / 100,
  };
  if (context.failure) logger.error({ ...fields, err: context.failure }, 'request failed');
  else if (!context.response.writableFinished)
    logger.info({ ...fields, clientLeft: true }, 'request ended early: the client left');
  else logger.info(fields, 'request');
}
