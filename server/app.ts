/**
 * Builds the workbench's Express app (the BFF): security guards, the JSON API under `/api`, and
 * the UI. It does not listen (see index.ts), so tests can bind it to any port.
 */
import type { Server } from 'node:http';
import express from 'express';
import { workbenchBodyLimitBytes, type EmbeddedGatewayStatus } from '../contract/workbench-api';
import { unreadBodyLimiter, unreadBodyLimits } from '../contract/unread-body';
import type { Logger } from 'pino';
import { createAccessControl } from './sign-in/access';
import type { OidcSettings } from './core/config';
import { createAuditRouter, recordChanges } from './people/audit';
import { createPeople, type GroupPolicies } from './people/people';
import { AuditLog, PeopleStore } from './people/people-store';
import { scopeGuard } from './people/scope';
import { createActivityRouter } from './activity/activity';
import { createBalanceRouter } from './keys/balance';
import { createBatchesRouter } from './batches/batches';
import { bodyDepthLimit } from './core/body-depth';
import { jsonBody } from './core/json-body';
import { createCatalogRouter, createCatalogService } from './catalog/catalog';
import { createChatRouter } from './playground/chat-proxy';
import { createChildKeysRouter } from './keys/child-keys';
import { createCountTokensRouter } from './playground/count-tokens';
import { createEmbeddingsRouter } from './playground/embeddings-proxy';
import type { GatewayTimeouts } from './core/config';
import type { WorkbenchContext } from './core/context';
import { createChecksRouter } from './endpoints/router';
import { createErrorHandler, notFoundHandler, type AdviceSituation } from './core/errors';
import { createGatewayClient } from './core/gateway-client';
import { createGenerationRouter } from './playground/generation';
import { createHealthRouter } from './core/health';
import type { KeysStoreSettings } from './keys/keys-store';
import { requestLogger, workbenchChildLogger } from './core/logging';
import { createModelEndpointsRouter } from './catalog/model-endpoints';
import { createWebhooksRouter } from './notifications/webhooks';
import { ProfileStore } from './keys/profiles';
import {
  crossSiteGuard,
  hostCheck,
  securityHeaders,
  stateChangeGuard,
  type ListenAddress,
} from './core/security';
import { createValidateKeyRouter } from './keys/validate-key';
import { defaultStaticDir, devUi, staticUi } from './web-ui';

/** A UI source module Vite serves under /api in development (web/api/*.ts). */
const UI_MODULE_UNDER_API = /^\/api\/[\w./-]+\.(?:tsx?|jsx?|mjs|css)$/;

export interface WorkbenchOptions extends KeysStoreSettings {
  /** The gateway's root (no `/v1`); the BFF reaches it over HTTP only. */
  gatewayBaseUrl: string;
  mode: 'embedded' | 'external';
  /** Profile name → full key. Never sent to the browser. */
  profiles: Record<string, string>;
  /** Extra `Host` names to accept (WORKBENCH_ALLOWED_HOSTS). */
  allowedHosts?: string[];
  listenHost: string;
  /** May be 0 before listening; `setListenPort` gives the bound port to the Host check. */
  listenPort: number;
  logger: Logger;
  /** Mounts Vite as middleware (hot reload) instead of serving `dist/web`. */
  dev?: boolean;
  staticDir?: string;
  timeouts?: Partial<GatewayTimeouts>;
  catalogTtlMs?: number;
  /** Dev mode: the HTTP server Vite's HMR websocket attaches to. */
  httpServer?: Server;
  /** Largest accepted JSON body; chat messages may carry images as data URLs. */
  bodyLimitBytes?: number;
  /** Largest non-streamed gateway answer the BFF reads (defaults to 16 MiB). */
  gatewayAnswerLimitBytes?: number;
  /** Embedded mode: the state of the gateway process the start script supervises. */
  embeddedGateway?: () => EmbeddedGatewayStatus;
  /** WORKBENCH_ACCESS_TOKEN: with it, every page and API call needs a session (sign-in/access.ts). */
  accessToken?: string | null;
  /** People's sign-in with OpenID Connect (WORKBENCH_OIDC_*); null or undefined: off. */
  oidc?: OidcSettings | null;
  /** The people who signed in (opened by `startWorkbench` beside the keys store); else in memory. */
  peopleStore?: PeopleStore;
  /** The audit log (opened by `startWorkbench` beside the keys store); else in memory. */
  auditLog?: AuditLog;
  /** WORKBENCH_MEMBER_POLICY_FILE's policies, read by `startWorkbench`. */
  groupPolicies?: GroupPolicies;
}

export interface WorkbenchApp {
  app: express.Express;
  /** The Host check needs the real port when the server was bound to port 0. */
  setListenPort(port: number): void;
  /** Stops what the app runs besides requests (the Vite dev server). */
  close(): Promise<void>;
}

export const defaultTimeouts: GatewayTimeouts = {
  connectMs: 5_000,
  firstByteMs: 120_000,
  idleMs: 120_000,
  bodyDeadlineMs: 15_000,
  callDeadlineMs: 30_000,
};

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * The model and key a request is about, read from its body (`{profile, request: {model}}` for a
 * chat, `{profile, model}` elsewhere) or query, for advice that fits them.
 */
function situationOf(request: express.Request, profiles: ProfileStore): AdviceSituation {
  const body: Record<string, unknown> =
    request.body !== null && typeof request.body === 'object' ? request.body : {};
  const inner: Record<string, unknown> =
    body.request !== null && typeof body.request === 'object'
      ? (body.request as Record<string, unknown>)
      : {};
  const query = request.query as Record<string, unknown>;
  return {
    model: text(inner.model) ?? text(body.model) ?? text(query.model),
    identity: profiles.identityOf(text(body.profile) ?? text(query.profile)),
  };
}

export function createWorkbenchApp(options: WorkbenchOptions): WorkbenchApp {
  const logger = workbenchChildLogger(options.logger);
  const gateway = createGatewayClient({
    baseUrl: options.gatewayBaseUrl.replace(/\/+$/, '').replace(/\/v1$/, ''),
    timeouts: { ...defaultTimeouts, ...options.timeouts },
    maxAnswerBytes: options.gatewayAnswerLimitBytes,
  });
  const profiles = new ProfileStore(options.profiles);
  const catalog = createCatalogService(gateway, options.catalogTtlMs ?? 30_000);
  const context: WorkbenchContext = {
    mode: options.mode,
    gateway,
    profiles,
    catalog,
    logger,
    embeddedGateway: options.embeddedGateway ?? null,
  };
  const listen: ListenAddress = { host: options.listenHost, port: options.listenPort };
  const oidc = options.oidc ?? null;
  const allowedHosts = [
    ...(options.allowedHosts ?? []),
    // People's browsers come back from the issuer to the public address.
    ...(oidc ? [new URL(oidc.publicUrl).host] : []),
  ].map((name) => name.toLowerCase());
  const dev = options.dev ?? false;
  const keysStore = options.keysStore ?? null;
  const peopleStore = options.peopleStore ?? PeopleStore.memory();
  const auditLog = options.auditLog ?? AuditLog.memory();
  let endPersonSessions: (personId: string) => void = () => undefined;
  const people = oidc
    ? createPeople({
        context,
        settings: oidc,
        groupPolicies: options.groupPolicies ?? [],
        people: peopleStore,
        audit: auditLog,
        keysStore,
        endPersonSessions: (personId) => endPersonSessions(personId),
      })
    : null;
  const access = createAccessControl({ token: options.accessToken, people });
  endPersonSessions = access.endPersonSessions;

  const bodyLimitBytes = options.bodyLimitBytes ?? workbenchBodyLimitBytes;
  const limitUnreadBody = unreadBodyLimiter(unreadBodyLimits(bodyLimitBytes));

  const app = express();
  app.disable('x-powered-by');
  // Every guard below may answer before the body is read: what is left of it is discarded only
  // up to a bound (contract/unread-body.ts).
  app.use((request, response, next) => {
    limitUnreadBody(request, response);
    next();
  });
  // ETags on API answers would let a cached balance or check report look fresh.
  app.set('etag', false);
  app.use(requestLogger(logger));
  app.use(securityHeaders(dev));
  app.use(hostCheck(listen, allowedHosts));

  const api = express.Router();
  api.use(crossSiteGuard());
  api.use(stateChangeGuard());
  // Before the body is read: without a session only the sign-in routes get that far.
  api.use(access.requireSession);
  api.use(jsonBody(bodyLimitBytes));
  api.use(bodyDepthLimit());
  api.use((_request, response, next) => {
    response.setHeader('Cache-Control', 'no-store');
    next();
  });
  api.use(access.router);
  // Before every route: a member names no profile but their own, and reaches no admin route.
  api.use(scopeGuard());
  api.use(recordChanges(context, auditLog, oidc ? peopleStore : null));
  api.use(createAuditRouter(auditLog));
  if (people) api.use(people.router);
  api.use(createHealthRouter(context));
  api.use(createCatalogRouter(catalog));
  api.use(createModelEndpointsRouter(context));
  api.use(createChatRouter(context));
  api.use(createEmbeddingsRouter(context));
  api.use(createCountTokensRouter(context));
  api.use(createGenerationRouter(context));
  api.use(createBalanceRouter(context));
  api.use(createValidateKeyRouter(context));
  api.use(createChecksRouter(context));
  api.use(createActivityRouter(context));
  api.use(createBatchesRouter(context));
  api.use(
    createChildKeysRouter(context, {
      keysStore,
      environmentProfiles: options.environmentProfiles ?? [],
      requireSession: access.requireSession,
    }),
  );
  api.use(createWebhooksRouter(context, { requireSession: access.requireSession }));
  api.use(notFoundHandler);
  const ui = dev ? devUi({ httpServer: options.httpServer, allowedHosts }) : null;
  if (ui) {
    // In development Vite serves the UI's source modules, and web/api/*.ts lands at /api/*.ts:
    // those GETs go to Vite (behind the page session), not to the API router, which has no
    // such routes.
    app.use((request, response, next) => {
      if (request.method !== 'GET' || !UI_MODULE_UNDER_API.test(request.path)) return next();
      access.requirePageSession(request, response, () => ui.modules(request, response, next));
    });
  }
  app.use('/api', api);
  app.use(access.pageRouter);
  app.use(access.requirePageSession);

  let closeUi = async () => {};
  if (ui) {
    app.use(ui.middleware);
    closeUi = ui.close;
  } else {
    app.use(...staticUi(options.staticDir ?? defaultStaticDir));
  }

  app.use(
    createErrorHandler(
      () => profiles.allKeys(),
      (error) => logger.error({ err: error }, 'unexpected error'),
      { mode: options.mode, situationOf: (request) => situationOf(request, profiles) },
    ),
  );

  return {
    app,
    setListenPort: (port) => {
      listen.port = port;
    },
    close: () => closeUi(),
  };
}
