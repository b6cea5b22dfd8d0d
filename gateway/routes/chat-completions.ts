/** `POST /v1/chat/completions`: the chat-completion form, plain and streaming. */
import { authenticate } from '../auth/authenticate';
import { gatherResponse } from '../canonical/model';
import { toGatewayError } from '../errors';
import { chatErrorBody } from '../forms/openai/error-shape';
import { toCanonicalRequest } from '../forms/openai/request-converter';
import { chatCompletionRequestSchema } from '../forms/openai/request-schema';
import { toChatCompletion } from '../forms/openai/response-converter';
import { writeChatCompletionStream } from '../forms/openai/stream-transform';
import { parseBody } from '../forms/validation';
import { readJsonBody } from '../http/read-body';
import { sendJson } from '../http/respond';
import type { Router } from '../http/router';
import { startInference, withErrors, type ErrorWriter, type GatewayParts } from './route-kit';

export const writeChatError: ErrorWriter = (error, context) => ({
  body: chatErrorBody(error, context.traceId),
});

export function addChatCompletionRoutes(router: Router, parts: GatewayParts): void {
  router.add(
    'POST',
    '/v1/chat/completions',
    withErrors(writeChatError, async (context) => {
      const { request, response, url, traceId } = context;
      const key = authenticate(request, url, 'chat_completions', parts.registry);
      const body = parseBody(
        chatCompletionRequestSchema,
        await readJsonBody(request, parts.config.maxBodyBytes),
      );
      const canonical = toCanonicalRequest(body);

      const run = startInference(parts, context, key, canonical, 'chat_completions');
      const created = Math.floor(Date.now() / 1000);

      if (canonical.stream) {
        await writeChatCompletionStream(
          response,
          run.events,
          {
            model: run.model.id,
            traceId,
            created,
            includeUsage: body.stream_options?.include_usage === true,
          },
          (error) => chatErrorBody(error, traceId),
          toGatewayError,
        );
        return;
      }
      const answer = await gatherResponse(run.events);
      sendJson(response, 200, toChatCompletion(answer, run.model.id, traceId, created));
    }),
  );
}
