/**
 * The Messages form (vendor A): `POST /v1/messages`, plain and streaming, and
 * `POST /v1/messages/count_tokens`. The vendor's client puts `/v1` in its paths, so its base
 * address is the gateway root. `anthropic-version` and `anthropic-beta` go to an Anthropic
 * upstream as sent (the form's `passHeaders`); other kinds do without them.
 */
import { z } from 'zod';
import { countPromptTokens } from '../canonical/token-count';
import { GatewayError, notFound } from '../errors';
import { messagesForm } from '../forms/anthropic';
import { toCanonicalCountRequest } from '../forms/anthropic/request-to-canonical';
import { countTokensRequestSchema, messagesRequestSchema } from '../forms/anthropic/request-schema';
import { messagesResponseSchema } from '../forms/anthropic/canonical-to-response';
import { parseBody } from '../forms/validation';
import { COUNT_TOKENS_ERRORS, serveCountTokens, type CountTokensParts } from './count-tokens';
import { INFERENCE_ERRORS, inferenceRoute, type InferenceParts } from './inference';
import { addRoute, jsonContent, named, type RouteDoc, type RouteFamily } from './route-doc';
import { withErrors } from './route-kit';
import { translationHeadersSchema } from './translation-headers';

const countTokensResponseSchema = z.object({ input_tokens: z.number().int() });

const createMessage: RouteDoc = {
  operationId: 'createMessage',
  metricsRoute: 'messages',
  method: 'POST',
  path: '/v1/messages',
  summary: 'A message (the Messages form)',
  description:
    "Plain, or with `stream: true` the vendor's named server-sent events (`ping` while waiting). `usage.cost_usd` is the charge.",
  tag: 'Messages',
  auth: 'messages',
  headers: translationHeadersSchema.extend(
    Object.fromEntries(
      (messagesForm.passHeaders ?? []).map((name) => [
        name,
        z.string().optional().meta({ description: 'Passed on to an upstream of this form.' }),
      ]),
    ),
  ),
  body: named('MessagesRequest', messagesRequestSchema),
  responses: {
    200: {
      description: 'The message.',
      content: {
        'application/json': named('Message', messagesResponseSchema),
        'text/event-stream': { text: "The vendor's events, `message_start` to `message_stop`." },
      },
    },
  },
  errors: { form: 'messages', statuses: INFERENCE_ERRORS },
};

const countMessageTokens: RouteDoc = {
  operationId: 'countMessageTokens',
  metricsRoute: 'messages_count_tokens',
  method: 'POST',
  path: '/v1/messages/count_tokens',
  summary: 'Count the tokens of a Messages request',
  description: 'Free: runs no model.',
  tag: 'Messages',
  auth: 'messages',
  body: named('MessagesCountTokensRequest', countTokensRequestSchema),
  responses: {
    200: jsonContent('The prompt tokens.', named('MessagesTokenCount', countTokensResponseSchema)),
  },
  errors: { form: 'messages', statuses: COUNT_TOKENS_ERRORS },
};

export const messagesRoutes: RouteFamily<'names' | keyof InferenceParts | keyof CountTokensParts> =
  {
    routes: [createMessage, countMessageTokens],
    add(router, parts) {
      addRoute(router, createMessage, inferenceRoute(parts, messagesForm));

      addRoute(
        router,
        countMessageTokens,
        withErrors(messagesForm.errorBody, (context) =>
          serveCountTokens(
            parts,
            context,
            'messages',
            (body): z.output<typeof countTokensResponseSchema> => {
              const canonical = toCanonicalCountRequest(parseBody(countTokensRequestSchema, body));
              parts.names.resolve(canonical.model);
              return { input_tokens: countPromptTokens(canonical) };
            },
          ),
        ),
      );
      // Registered after the real routes, so other methods and paths under /v1/messages still get
      // this form's error shape (the vendor's client parses it), not the chat-completion one.
      const servedPaths = new Set([createMessage.path, countMessageTokens.path]);
      const unknownRoute = withErrors(messagesForm.errorBody, ({ request, response, url }) => {
        if (servedPaths.has(url.pathname)) {
          response.setHeader('allow', 'POST');
          throw new GatewayError({
            status: 405,
            type: 'invalid_request',
            stage: 'validation',
            message: `${request.method} is not allowed on ${url.pathname}; use POST.`,
          });
        }
        throw notFound(
          `No route ${request.method} ${url.pathname}. Messages-form routes are POST /v1/messages and /v1/messages/count_tokens.`,
        );
      });
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']) {
        router.addFallback(method, /^\/v1\/messages(?:\/.*)?$/, unknownRoute);
      }
    },
  };
