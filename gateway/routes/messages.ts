/**
 * The Messages form (vendor A): `POST /v1/messages`, plain and streaming, and
 * `POST /v1/messages/count_tokens`. The vendor's client puts `/v1` in its paths, so its base
 * address is the gateway root. `anthropic-version` and `anthropic-beta` go to an Anthropic
 * upstream as sent (the form's `passHeaders`); other kinds do without them.
 */
import { countPromptTokens } from '../canonical/token-count';
import { GatewayError, notFound } from '../errors';
import { messagesForm } from '../forms/anthropic';
import { toCanonicalCountRequest } from '../forms/anthropic/request-converter';
import { countTokensRequestSchema } from '../forms/anthropic/request-schema';
import { parseBody } from '../forms/validation';
import type { Router } from '../http/router';
import { serveCountTokens } from './count-tokens';
import { inferenceRoute } from './inference';
import { withErrors, type GatewayParts } from './route-kit';

export function addMessagesRoutes(router: Router, parts: GatewayParts): void {
  router.add('POST', '/v1/messages', inferenceRoute(parts, messagesForm));

  router.add(
    'POST',
    '/v1/messages/count_tokens',
    withErrors(messagesForm.errorBody, (context) =>
      serveCountTokens(parts, context, 'messages', (body) => {
        const canonical = toCanonicalCountRequest(parseBody(countTokensRequestSchema, body));
        parts.catalog.resolve(canonical.model);
        return { input_tokens: countPromptTokens(canonical) };
      }),
    ),
  );
  // Registered after the real routes, so other methods and paths under /v1/messages still get
  // this form's error shape (the vendor's client parses it), not the chat-completion one.
  const servedPaths = new Set(['/v1/messages', '/v1/messages/count_tokens']);
  const unknownRoute = withErrors(messagesForm.errorBody, ({ request, response, url }) => {
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
