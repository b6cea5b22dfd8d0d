/** `POST /v1/chat/completions`: the chat-completion form, plain and streaming. */
import { chatCompletionsForm } from '../forms/openai';
import type { Router } from '../http/router';
import { inferenceRoute } from './inference';
import type { GatewayParts } from './route-kit';

export function addChatCompletionRoutes(router: Router, parts: GatewayParts): void {
  router.add('POST', '/v1/chat/completions', inferenceRoute(parts, chatCompletionsForm));
}
