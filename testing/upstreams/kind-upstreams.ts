/**
 * One fake upstream per provider kind, each behind one provider of the providers file serving one
 * model at its own prices, and the kinds' recorded answers with what each says (text, tool calls,
 * usage as the canonical model counts it). Shared by the tests that run every form to every kind.
 */
import type { UpstreamKind } from '../../gateway/providers/upstream/provider-config';
import { startFakeUpstream, type FakeReply, type FakeUpstream } from './fake-upstream';
import {
  fixtureEvents,
  fixtureJson,
  providersFileFor,
  UPSTREAM_KINDS,
  type UpstreamProviderSpec,
  type UpstreamSetup,
} from './upstream-kit';

/** The provider of each kind: its id, the catalog model it serves, and its prices in nanos. */
export const KIND_PROVIDERS: Record<
  UpstreamKind,
  {
    provider: string;
    model: string;
    upstreamModel: string;
    promptNanos: number;
    completionNanos: number;
  }
> = {
  'openai-compatible': {
    provider: 'oai',
    model: 'test/oai-model',
    upstreamModel: 'gpt-upstream-1',
    promptNanos: 100,
    completionNanos: 2_000,
  },
  anthropic: {
    provider: 'ant',
    model: 'test/ant-model',
    upstreamModel: 'claude-upstream-1',
    promptNanos: 150,
    completionNanos: 3_000,
  },
  gemini: {
    provider: 'gem',
    model: 'test/gem-model',
    upstreamModel: 'gemini-upstream-1',
    promptNanos: 120,
    completionNanos: 2_500,
  },
};

/** Nanos → the decimal USD string the providers file takes. */
const usd = (nanos: number) => (nanos / 1e9).toFixed(9).replace(/0+$/, '');

export type KindUpstreams = UpstreamSetup & {
  fakes: Record<UpstreamKind, FakeUpstream>;
  close(): Promise<void>;
};

/**
 * Starts a fake upstream per kind and writes the providers file for them (with the simulated
 * models too, if asked). One attempt per request: a test that scripts the wrong reply fails at
 * once instead of being retried.
 */
export async function startKindUpstreams(
  options: { includeSimulatedModels?: boolean; also?: UpstreamProviderSpec[] } = {},
): Promise<KindUpstreams> {
  const fakes = {} as Record<UpstreamKind, FakeUpstream>;
  for (const kind of UPSTREAM_KINDS) fakes[kind] = await startFakeUpstream();
  const setup = providersFileFor(
    [
      ...UPSTREAM_KINDS.map((kind) => ({
        id: KIND_PROVIDERS[kind].provider,
        kind,
        url: fakes[kind].url,
        retry: { max_attempts: 1 },
        models: [
          {
            id: KIND_PROVIDERS[kind].model,
            upstreamModel: KIND_PROVIDERS[kind].upstreamModel,
            prompt: usd(KIND_PROVIDERS[kind].promptNanos),
            completion: usd(KIND_PROVIDERS[kind].completionNanos),
          },
        ],
      })),
      ...(options.also ?? []),
    ],
    options,
  );
  return {
    ...setup,
    fakes,
    async close() {
      for (const fake of Object.values(fakes)) await fake.close();
    },
  };
}

/** A recorded answer of a kind and what it says. */
export type RecordedAnswer = {
  reply: () => FakeReply;
  text: string;
  toolCalls: Array<{ id: string; name: string; args: unknown }>;
  usage: { prompt: number; completion: number };
};

const json = (kind: UpstreamKind, name: string) => () => ({ body: fixtureJson(kind, name) });
const events = (kind: UpstreamKind, name: string) => () => ({ events: fixtureEvents(kind, name) });

/** The recorded answers, with the usage each reports as the canonical model counts it. */
export const RECORDED_ANSWERS: Record<
  UpstreamKind,
  Record<'text' | 'tool', Record<'plain' | 'stream', RecordedAnswer>>
> = {
  'openai-compatible': {
    text: {
      plain: {
        reply: json('openai-compatible', 'openai-text-response.json'),
        text: 'The image shows a wooden boardwalk path running through a lush green field or meadow.',
        toolCalls: [],
        usage: { prompt: 1117, completion: 46 },
      },
      stream: {
        reply: events('openai-compatible', 'openai-text-stream.chunks.txt'),
        text: 'Hello! How can I assist you today?',
        toolCalls: [],
        usage: { prompt: 19, completion: 10 },
      },
    },
    tool: {
      plain: {
        reply: json('openai-compatible', 'openai-tool-call-response.json'),
        text: '',
        toolCalls: [
          { id: 'call_abc123', name: 'get_current_weather', args: { location: 'Boston, MA' } },
          { id: 'call_def456', name: 'get_current_weather', args: { location: 'Paris, France' } },
        ],
        usage: { prompt: 82, completion: 37 },
      },
      stream: {
        reply: events('openai-compatible', 'openai-tool-call-stream.chunks.txt'),
        text: '',
        toolCalls: [
          {
            id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA',
            name: 'get_weather',
            args: { location: 'Paris, France' },
          },
          {
            id: 'call_ABrkX3T4vhUgYNEmmRxPEU2A',
            name: 'get_weather',
            args: { location: 'Bogotá, Colombia' },
          },
        ],
        usage: { prompt: 62, completion: 45 },
      },
    },
  },
  anthropic: {
    text: {
      plain: {
        reply: json('anthropic', 'anthropic-text-response.json'),
        text: 'Hi! My name is Claude.',
        toolCalls: [],
        // input_tokens + cache_creation_input_tokens + cache_read_input_tokens
        usage: { prompt: 2095 + 2051 + 2051, completion: 503 },
      },
      stream: {
        reply: events('anthropic', 'anthropic-text-stream.chunks.txt'),
        text: 'Hello!',
        toolCalls: [],
        // message_delta's output_tokens replaces message_start's (the vendor's counts are cumulative).
        usage: { prompt: 25, completion: 15 },
      },
    },
    tool: {
      plain: {
        reply: json('anthropic', 'anthropic-tool-use-response.json'),
        text: "I'll check the current weather in San Francisco for you.",
        toolCalls: [
          {
            id: 'toolu_01A09q90qw90lq917835lq9',
            name: 'get_weather',
            args: { location: 'San Francisco, CA', unit: 'celsius' },
          },
        ],
        usage: { prompt: 472, completion: 89 },
      },
      stream: {
        reply: events('anthropic', 'anthropic-tool-use-stream.chunks.txt'),
        text: "Okay, let's check the weather for San Francisco, CA:",
        toolCalls: [
          {
            id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
            name: 'get_weather',
            args: { location: 'San Francisco, CA', unit: 'fahrenheit' },
          },
        ],
        usage: { prompt: 472, completion: 89 },
      },
    },
  },
  gemini: {
    text: {
      plain: {
        reply: json('gemini', 'gemini-text-response.json'),
        text: 'AI learns patterns from data to make predictions or decisions.',
        toolCalls: [],
        // candidatesTokenCount + thoughtsTokenCount: thinking is billed as output.
        usage: { prompt: 8, completion: 11 + 644 },
      },
      stream: {
        reply: events('gemini', 'gemini-text.chunks.txt'),
        text: 'Once upon a time, in a town nestled between rolling hills, lived a girl named Elara.',
        toolCalls: [],
        usage: { prompt: 8, completion: 17 },
      },
    },
    tool: {
      plain: {
        reply: json('gemini', 'gemini-function-call-response.json'),
        text: '',
        // The vendor gave no ids: the provider numbers the calls.
        toolCalls: [
          { id: 'call_0', name: 'power_disco_ball', args: { power: true } },
          { id: 'call_1', name: 'start_music', args: { energetic: true, loud: true } },
        ],
        usage: { prompt: 142, completion: 23 + 116 },
      },
      stream: {
        reply: events('gemini', 'gemini-function-call.chunks.txt'),
        text: '',
        toolCalls: [
          { id: 'call_0', name: 'get_current_temperature', args: { location: 'London' } },
          { id: 'call_1', name: 'get_current_temperature', args: { location: 'Paris' } },
        ],
        usage: { prompt: 61, completion: 36 + 51 },
      },
    },
  },
};
