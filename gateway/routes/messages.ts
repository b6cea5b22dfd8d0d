/**
 * The Messages form (vendor A): `POST /v1/messages`, plain and streaming, and
 * `POST /v1/messages/count_tokens`. The vendor's client puts `/v1` in its paths, so its base
 * address is the gateway root. `anthropic-version` and `anthropic-beta` are accepted and ignored.
 */
import { authenticate } from '../auth/authenticate';
import { gatherResponse } from '../canonical/model';
import { countPromptTokens } from '../canonical/token-count';
import { GatewayError, notFound, toGatewayError } from '../errors';
import { messagesErrorBody } from '../forms/anthropic/error-shape';
import { toCanonicalCountRequest, toCanonicalRequest } from '../forms/anthropic/request-converter';
import { countTokensRequestSchema, messagesRequestSchema } from '../forms/anthropic/request-schema';
import { toMessagesResponse } from '../forms/anthropic/response-converter';
import { writeMessagesStream } from '../forms/anthropic/stream-transform';
import { parseBody } from '../forms/validation';
import { readJsonBody } from '../http/read-body';
import { sendJson } from '../http/respond';
import type { Router } from '../http/router';
import { startInference, withErrors, type ErrorWriter, type GatewayParts } from './route-kit';

export const writeMessagesError: ErrorWriter = (error, context) => ({
  body: messagesErrorBody(error, context.traceId),
});

export function addMessagesRoutes(router: Router, parts: GatewayParts): void {
  router.add(
    'POST',
    '/v1/messages',
    withErrors(writeMessagesError, async (context) => {
      const { request, response, url, traceId } = context;
      const key = authenticate(request, url, 'messages', parts.registry);
      const body = parseBody(
        messagesRequestSchema,
        await readJsonBody(request, parts.config.maxBodyBytes),
      );
      const canonical = toCanonicalRequest(body);

      const run = startInference(parts, context, key, canonical, 'messages');

      if (canonical.stream) {
        await writeMessagesStream(
          response,
          run.events,
          { model: run.model.id, traceId, promptTokens: run.promptTokens },
          (error) => messagesErrorBody(error, traceId),
          toGatewayError,
        );
        return;
      }
      const answer = await gatherResponse(run.events);
      sendJson(response, 200, toMessagesResponse(answer, run.model.id, traceId));
    }),
  );

  // Counting runs no model and costs nothing, so it needs a known key but not a funded one.
  router.add(
    'POST',
    '/v1/messages/count_tokens',
    withErrors(writeMessagesError, async ({ request, response, url }) => {
      authenticate(request, url, 'messages', parts.registry);
      const body = parseBody(
        countTokensRequestSchema,
        await readJsonBody(request, parts.config.maxBodyBytes),
      );
      const canonical = toCanonicalCountRequest(body);
      parts.catalog.resolve(canonical.model);
      sendJson(response, 200, { input_tokens: countPromptTokens(canonical) });
    }),
  );

  // Registered after the real routes, so other methods and paths under /v1/messages still get
  // this form's error shape (the vendor's client parses it), not the chat-completion one.
  const servedPaths = new Set(['/v1/messages', '/v1/messages/count_tokens']);
  const unknownRoute = withErrors(writeMessagesError, ({ request, response, url }) => {
    if (servedPaths.has(url.pathname)) {
      response.setHeader('allow', 'POST');
      throw new GatewayError(
        405,
        'invalid_request',
        'validation',
        `${request.method} is not allowed on ${url.pathname}; use POST.`,
      );
    }
    throw notFound(
      `No route ${request.method} ${url.pathname}. Messages-form routes are POST /v1/messages and /v1/messages/count_tokens.`,
    );
  });
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']) {
    router.add(method, /^\/v1\/messages(?:\/.*)?$/, unknownRoute);
  }
}
