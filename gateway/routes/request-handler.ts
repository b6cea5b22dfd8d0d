/**
 * The gateway's HTTP entry: every request gets its `cf-ray`, is matched to a route family's
 * handler, logged and counted once it ends; a request no route serves, or one Node's parser
 * refused, still gets the gateway's error shape.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { unreadBodyLimiter, unreadBodyLimits } from '../../contract/unread-body';
import { GatewayError } from '../errors';
import { chatErrorBody } from '../forms/openai/error-shape';
import { DEFAULT_CLIENT_SEND_TIMEOUT_MS, sendJson, setClientSendTimeout } from '../http/respond';
import { requestUrl, Router, type Registration, type RouteContext } from '../http/router';
import { newTraceId } from '../http/trace-id';
import { loggablePath } from '../logger';
import { routeLabeller } from '../operability/labels';
import { RequestTiming } from '../shared/request-timing';
import type { RouteFamily } from './route-doc';
import type { GatewayParts } from './route-kit';

export type RequestHandler = {
  handle: (request: IncomingMessage, response: ServerResponse) => void;
  /** What the router holds, each registration with the operations it serves (for tests). */
  routes(): readonly Registration[];
  /** Answers a request Node's parser refused before `handle` saw it. */
  handleClientError: (error: NodeJS.ErrnoException, socket: Duplex) => void;
};

/** Registers `families` (each given the parts it uses) and answers requests with them. */
export function createRequestHandler(
  parts: GatewayParts,
  families: readonly RouteFamily[],
): RequestHandler {
  const { config, logger, metrics } = parts;
  const router = new Router();
  for (const family of families) family.add(router, parts);
  // /metrics labels each request by the route that served it, from the same list.
  const routeLabelOf = routeLabeller(families);

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

  return { handle, routes: () => router.registrations(), handleClientError };
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
