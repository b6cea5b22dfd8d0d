/** Builders and fixture readers shared by this provider's tests. */
import { createParser } from 'eventsource-parser';
import type { CanonicalEvent, CanonicalRequest } from '../../gateway/canonical/model';
import type { ModelRoute } from '../../gateway/providers/provider';
import type { UpstreamSseEvent } from '../../gateway/providers/upstream/adapter';
import {
  defaultBreaker,
  defaultRetry,
  defaultTimeouts,
  type ProviderConfig,
} from '../../gateway/providers/upstream/provider-config';
import { anthropicAdapter } from '../../gateway/providers/anthropic/index';
import { canonicalRequest } from '../upstreams/canonical';
import { vendorFixtureText } from '../../gateway/vendors/fixtures';

export const TEST_KEY = 'sk-ant-test-0123456789abcdef';

export const testConfig = (overrides: Partial<ProviderConfig> = {}): ProviderConfig => ({
  id: 'claude-direct',
  kind: 'anthropic',
  baseUrl: 'https://api.anthropic.example',
  apiKey: TEST_KEY,
  apiKeyEnv: 'ANTHROPIC_API_KEY',
  timeouts: defaultTimeouts,
  retry: defaultRetry,
  breaker: defaultBreaker,
  headers: {},
  inlineImageUrls: false,
  models: [],
  ...overrides,
});

export const testRoute: ModelRoute = {
  providerId: 'claude-direct',
  upstreamModel: 'claude-sonnet-4-5-20250929',
  promptNanos: 3_000,
  completionNanos: 15_000,
  contextLength: 200_000,
  maxCompletionTokens: 64_000,
  inputModalities: ['text', 'image'],
  supportedParameters: ['temperature', 'top_p', 'stop', 'tools', 'tool_choice'],
};

export const testRequest = (overrides: Partial<CanonicalRequest> = {}): CanonicalRequest =>
  canonicalRequest({
    model: 'anthropic/claude-sonnet-4.5',
    messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hello, Claude' }] }],
    maxTokens: 1024,
    ...overrides,
  });

export const readFixture = (name: string) => vendorFixtureText('anthropic', name);

export const readJsonFixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFixture(name)) as Record<string, unknown>;

/** A recorded stream split into its server-sent events, by the parser the engine uses. */
export function readSseFixture(name: string): UpstreamSseEvent[] {
  const events: UpstreamSseEvent[] = [];
  const parser = createParser({
    onEvent: (event) => events.push({ event: event.event, data: event.data }),
  });
  parser.feed(readFixture(name));
  parser.reset({ consume: true });
  return events;
}

/**
 * Feeds events through the adapter's stream transform, one by one, as the engine does: what each
 * event produced, then what the end of the stream produced (or what it threw).
 */
export function replay(events: UpstreamSseEvent[], providerId = 'claude-direct') {
  const state = anthropicAdapter.createStreamState();
  const perEvent: CanonicalEvent[][] = [];
  for (const event of events)
    perEvent.push(anthropicAdapter.transformStreamEvent(state, event, providerId));
  const atEnd = anthropicAdapter.finishStream(state, providerId);
  const all = [...perEvent.flat(), ...atEnd];
  return {
    perEvent,
    atEnd,
    all,
    text: all.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join(''),
    finish: all.find((event) => event.type === 'finish'),
  };
}

/** Runs `action` and returns what it threw, failing the test when it throws nothing. */
export function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('Expected the call to throw');
}
