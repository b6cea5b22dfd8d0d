/**
 * The Gemini API (`generativelanguage.googleapis.com`) as an upstream provider kind: the pieces
 * of this folder, assembled for the shared upstream engine.
 */
import type { ProviderAdapter } from '../upstream/adapter';
import { geminiEmbeddings } from './embeddings-adapter';
import { geminiHeaders, geminiUrl } from './api';
import { readGeminiError } from './error-mapping';
import { toGeminiBody } from './canonical-to-request';
import { fromGeminiResponse } from './response-to-canonical';
import {
  createGeminiStreamState,
  finishGeminiStream,
  geminiUsageSoFar,
  transformGeminiEvent,
  type GeminiStreamState,
} from './stream-to-canonical';

export type { GeminiStreamState } from './stream-to-canonical';

export const geminiAdapter: ProviderAdapter<GeminiStreamState> = {
  kind: 'gemini',
  buildCall: (request, route, config) => ({
    url: geminiUrl(config.baseUrl, route.upstreamModel, request.stream),
    headers: geminiHeaders(config),
    body: toGeminiBody(request, config, route),
  }),
  fromResponse: fromGeminiResponse,
  createStreamState: createGeminiStreamState,
  transformStreamEvent: transformGeminiEvent,
  finishStream: finishGeminiStream,
  usageSoFar: geminiUsageSoFar,
  readError: readGeminiError,
  embeddings: geminiEmbeddings,
};
