/**
 * The `openai-compatible` provider kind: the chat-completions wire, for OpenAI and every server
 * that speaks it (OpenRouter, vLLM, llama.cpp server, Ollama, LiteLLM). They differ only in their
 * configuration (base URL, key, extra headers), never in code.
 */
import type { ProviderAdapter } from '../upstream/adapter';
import { openAiEmbeddings } from './embeddings';
import { chatCompletionsHeaders, chatCompletionsUrl } from './api';
import { readError } from './error-mapping';
import { toChatCompletionsBody } from './request-converter';
import { fromChatCompletion } from './response-converter';
import {
  createStreamState,
  finishStream,
  openAiUsageSoFar,
  transformStreamEvent,
  type OpenAiStreamState,
} from './stream-transform';

export type { OpenAiStreamState } from './stream-transform';

export const openAiCompatibleAdapter: ProviderAdapter<OpenAiStreamState> = {
  kind: 'openai-compatible',
  buildCall: (request, route, config) => ({
    url: chatCompletionsUrl(config.baseUrl),
    headers: chatCompletionsHeaders(config),
    body: toChatCompletionsBody(request, route, config),
  }),
  fromResponse: fromChatCompletion,
  createStreamState,
  transformStreamEvent,
  finishStream,
  usageSoFar: openAiUsageSoFar,
  embeddings: openAiEmbeddings,
  readError,
};
