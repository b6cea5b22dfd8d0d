/**
 * The `openai-compatible` provider kind: the chat-completions wire, for OpenAI and every server
 * that speaks it (OpenRouter, vLLM, llama.cpp server, Ollama, LiteLLM). They differ only in their
 * configuration (base URL, key, extra headers), never in code.
 */
import type { ProviderAdapter, UpstreamSseEvent } from '../upstream/adapter';
import { UpstreamError } from '../upstream-error';
import { openAiEmbeddings } from './embeddings-adapter';
import { chatCompletionsHeaders, chatCompletionsUrl } from './api';
import { readError } from './error-mapping';
import { toChatCompletionsBody } from './canonical-to-request';
import { fromChatCompletion } from './response-to-canonical';
import {
  createStreamState,
  finishStream,
  openAiUsageSoFar,
  transformStreamEvent,
  type OpenAiStreamState,
} from './stream-to-canonical';
import {
  createResponsesStreamState,
  finishResponsesStream,
  fromResponseObject,
  responsesUrl,
  responsesUsageSoFar,
  speaksResponses,
  toResponsesBody,
  transformResponsesEvent,
  type ResponsesStreamState,
} from './responses-wire';

export type { OpenAiStreamState } from './stream-to-canonical';

/** Either wire's state: the Responses one once the stream shows it is that wire. */
type StreamState = OpenAiStreamState & { responses?: ResponsesStreamState };

/** A Responses stream names its events `response.…` (and says so in each event's `type`). */
const isResponsesEvent = (event: UpstreamSseEvent) =>
  event.event?.startsWith('response.') === true ||
  /^\s*\{\s*"type"\s*:\s*"response\./.test(event.data);

function parseEvent(data: string, providerId: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new UpstreamError(
      'malformed',
      providerId,
      'The provider sent a stream event that is not JSON.',
    );
  }
}

export const openAiCompatibleAdapter: ProviderAdapter<StreamState> = {
  kind: 'openai-compatible',
  buildCall: (request, route, config) =>
    speaksResponses(request, config)
      ? {
          url: responsesUrl(config.baseUrl),
          headers: chatCompletionsHeaders(config),
          body: toResponsesBody(request, route, config.id),
        }
      : {
          url: chatCompletionsUrl(config.baseUrl),
          headers: chatCompletionsHeaders(config),
          body: toChatCompletionsBody(request, route, config),
        },
  fromResponse: (body, providerId) =>
    (body as { object?: unknown } | null)?.object === 'response'
      ? fromResponseObject(body, providerId)
      : fromChatCompletion(body, providerId),
  createStreamState,
  transformStreamEvent(state, event, providerId) {
    if (state.responses === undefined && !isResponsesEvent(event))
      return transformStreamEvent(state, event, providerId);
    state.responses ??= createResponsesStreamState();
    if (event.data.trim() === '' || event.data.trim() === '[DONE]') return [];
    return transformResponsesEvent(state.responses, parseEvent(event.data, providerId), providerId);
  },
  finishStream: (state, providerId) =>
    state.responses
      ? finishResponsesStream(state.responses, providerId)
      : finishStream(state, providerId),
  usageSoFar: (state) =>
    state.responses ? responsesUsageSoFar(state.responses) : openAiUsageSoFar(state),
  embeddings: openAiEmbeddings,
  readError,
};
