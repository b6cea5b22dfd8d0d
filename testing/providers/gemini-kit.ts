/** What the Gemini provider's tests share: the recorded fixtures, and a request, route and config. */
import { createParser } from 'eventsource-parser';
import type { CanonicalRequest } from '../../gateway/canonical/model';
import type { ModelRoute } from '../../gateway/providers/provider';
import type { UpstreamSseEvent } from '../../gateway/providers/upstream/adapter';
import {
  defaultBreaker,
  defaultRetry,
  defaultTimeouts,
  type ProviderConfig,
} from '../../gateway/providers/upstream/provider-config';
import { canonicalRequest as baseRequest } from '../upstreams/canonical';
import { vendorFixtureText } from '../../gateway/vendors/fixtures';

export const fixtureText = (name: string) => vendorFixtureText('gemini', name);

/** The vendor's response and error bodies, as far as the tests read them. */
export type RecordedBody = {
  candidates?: Array<{
    content?: {
      parts?: Array<{
        text?: string;
        thought?: boolean;
        functionCall?: { id?: string; name: string; args?: Record<string, unknown> };
      }>;
    };
    finishReason?: string;
  }>;
  promptFeedback?: { blockReason?: string };
  usageMetadata?: {
    promptTokenCount?: number;
    candidatesTokenCount?: number;
    thoughtsTokenCount?: number;
  };
  error?: { code: number; message: string; status: string };
};

export const fixtureJson = (name: string) => JSON.parse(fixtureText(name)) as RecordedBody;

/** A `.chunks.txt` stream split into events by the parser the engine uses. */
export function fixtureEvents(name: string): UpstreamSseEvent[] {
  const events: UpstreamSseEvent[] = [];
  const parser = createParser({
    onEvent: (event) => events.push({ event: event.event, data: event.data }),
  });
  parser.feed(fixtureText(name));
  parser.reset({ consume: true });
  return events;
}

/** The JSON of each `data:` line of a `.chunks.txt` stream, read independently of the parser. */
export const fixtureChunks = (name: string) =>
  fixtureText(name)
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as RecordedBody);

export const testKey = 'AIzaSyTestKeyForTheGeminiProvider00000';

export const providerConfig = (overrides: Partial<ProviderConfig> = {}): ProviderConfig => ({
  id: 'google-main',
  kind: 'gemini',
  baseUrl: 'https://generativelanguage.googleapis.com',
  apiKey: testKey,
  apiKeyEnv: 'GEMINI_API_KEY',
  timeouts: defaultTimeouts,
  retry: defaultRetry,
  breaker: defaultBreaker,
  headers: {},
  inlineImageUrls: true,
  models: [],
  ...overrides,
});

export const route: ModelRoute = {
  providerId: 'google-main',
  upstreamModel: 'gemini-2.5-flash',
  promptNanos: 300,
  completionNanos: 2_500,
  contextLength: 1_048_576,
  maxCompletionTokens: 65_536,
  inputModalities: ['text', 'image'],
  supportedParameters: ['max_tokens', 'temperature', 'top_p', 'stop', 'seed', 'tools'],
};

export const canonicalRequest = (overrides: Partial<CanonicalRequest> = {}): CanonicalRequest =>
  baseRequest({
    model: 'google/gemini-2.5-flash',
    messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hello there' }] }],
    maxTokens: 1_000,
    ...overrides,
  });
