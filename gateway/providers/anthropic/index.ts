/**
 * The Anthropic Messages provider kind, assembled for the shared upstream engine.
 * @see https://docs.anthropic.com/en/api/messages
 */
import type { ProviderAdapter } from '../upstream/adapter';
import { anthropicHeaders, messagesUrl } from './api';
import { readError } from './error-mapping';
import { sameFormHeaders } from '../upstream/request-fields';
import { toMessagesBody } from './canonical-to-request';
import { fromMessagesResponse } from './response-to-canonical';
import {
  anthropicUsageSoFar,
  createStreamState,
  finishStream,
  transformStreamEvent,
  type AnthropicStreamState,
} from './stream-to-canonical';

export type { AnthropicStreamState } from './stream-to-canonical';

export const anthropicAdapter: ProviderAdapter<AnthropicStreamState> = {
  kind: 'anthropic',
  buildCall: (request, route, config) => ({
    url: messagesUrl(config.baseUrl),
    headers: anthropicHeaders(config, sameFormHeaders(request, 'anthropic')),
    body: toMessagesBody(request, route, config),
  }),
  fromResponse: fromMessagesResponse,
  createStreamState,
  transformStreamEvent,
  finishStream,
  usageSoFar: anthropicUsageSoFar,
  readError,
};
