/** `POST /v1/chat/completions`: the chat-completion form, plain and streaming. */
import { chatCompletionSchema } from '../../contract/gateway';
import { chatCompletionsForm } from '../forms/openai';
import { chatCompletionRequestSchema } from '../forms/openai/request-schema';
import { INFERENCE_ERRORS, inferenceRoute, type InferenceParts } from './inference';
import { addRoute, named, type RouteDoc, type RouteFamily } from './route-doc';
import { translationHeadersSchema } from './translation-headers';

const createChatCompletion: RouteDoc = {
  operationId: 'createChatCompletion',
  metricsRoute: 'chat_completions',
  method: 'POST',
  path: '/v1/chat/completions',
  summary: 'A chat completion',
  description:
    'Plain, or streamed as server-sent events ending `data: [DONE]` with `stream: true`.',
  tag: 'Chat completions',
  auth: 'chat_completions',
  headers: translationHeadersSchema,
  body: named('ChatCompletionRequest', chatCompletionRequestSchema),
  responses: {
    200: {
      description: 'The completion; `usage.cost` is the charge in USD.',
      content: {
        'application/json': named('ChatCompletion', chatCompletionSchema),
        'text/event-stream': { text: '`chat.completion.chunk` events, then `data: [DONE]`.' },
      },
    },
  },
  errors: { form: 'gateway', statuses: INFERENCE_ERRORS },
};

export const chatCompletionRoutes: RouteFamily<keyof InferenceParts> = {
  routes: [createChatCompletion],
  add(router, parts) {
    addRoute(router, createChatCompletion, inferenceRoute(parts, chatCompletionsForm));
  },
};
