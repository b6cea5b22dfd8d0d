/**
 * The outgoing call of the openai-compatible kind: URL, headers and body, for a request that came
 * in on the chat-completions form (passed through) and for ones from the Messages and Gemini forms
 * (built from the canonical request, or refused naming the field and the provider).
 */
import type { CanonicalRequest } from '../../canonical/model';
import { GatewayError } from '../../errors';
import type { ModelRoute } from '../provider';
import {
  defaultBreaker,
  defaultRetry,
  defaultTimeouts,
  type ProviderConfig,
} from '../upstream/provider-config';
import { openAiCompatibleAdapter } from './index';
import { canonicalRequest } from '../../../testing/upstreams/canonical';

const apiKey = 'sk-or-v1-0123456789abcdef0123456789abcdef';

const config = (overrides: Partial<ProviderConfig> = {}): ProviderConfig => ({
  id: 'openrouter',
  kind: 'openai-compatible',
  baseUrl: 'https://openrouter.ai/api/v1/',
  apiKey,
  apiKeyEnv: 'OPENROUTER_API_KEY',
  timeouts: defaultTimeouts,
  retry: defaultRetry,
  breaker: defaultBreaker,
  headers: { 'HTTP-Referer': 'https://workbench.example', 'X-Title': 'Workbench' },
  inlineImageUrls: false,
  models: [],
  ...overrides,
});

const route: ModelRoute = {
  providerId: 'openrouter',
  upstreamModel: 'openai/gpt-4o-mini-2024-07-18',
  promptNanos: 150,
  completionNanos: 600,
  contextLength: 128_000,
  maxCompletionTokens: 16_384,
  inputModalities: ['text', 'image'],
  supportedParameters: ['tools', 'temperature', 'top_p', 'stop', 'seed', 'max_tokens'],
};

const canonical = (overrides: Partial<CanonicalRequest> = {}): CanonicalRequest =>
  canonicalRequest({
    model: 'openai/gpt-4o-mini',
    messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hello' }] }],
    maxTokens: 512,
    ...overrides,
  });

const build = (request: CanonicalRequest, providerConfig = config()) =>
  openAiCompatibleAdapter.buildCall(request, route, providerConfig);

const bodyOf = (request: CanonicalRequest, providerConfig = config()) =>
  build(request, providerConfig).body as Record<string, unknown>;

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected it to throw');
}

describe('a request that arrived on the chat-completions form', () => {
  const inboundBody = {
    model: 'openai/gpt-4o-mini',
    messages: [
      { role: 'developer', content: 'Answer in JSON.' },
      { role: 'user', content: 'List three colours.' },
    ],
    max_tokens: 4000,
    temperature: 0.2,
    response_format: { type: 'json_object' },
    logprobs: true,
    top_logprobs: 2,
    parallel_tool_calls: false,
    user: 'user-42',
    n: 1,
    stream: true,
    stream_options: { include_usage: false },
  };
  const unmapped = [
    'response_format',
    'logprobs',
    'top_logprobs',
    'parallel_tool_calls',
    'user',
    'n',
  ];
  const sameForm = (body: Record<string, unknown>, overrides: Partial<CanonicalRequest> = {}) =>
    canonical({
      stream: true,
      maxTokens: 256,
      inbound: { form: 'chat_completions', body, unmappedFields: unmapped },
      ...overrides,
    });

  it('passes the body on with only the model, the bound and the usage option replaced', () => {
    const sent = structuredClone(inboundBody);
    const body = bodyOf(sameForm(sent));

    expect(body).toEqual({
      ...inboundBody,
      model: route.upstreamModel,
      max_tokens: 256,
      stream: true,
      stream_options: { include_usage: true },
    });
    // Unknown fields reach the server as the client sent them, never refused on the same form.
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(body.logprobs).toBe(true);
    expect(body.parallel_tool_calls).toBe(false);
    // The client's own body is left as it was.
    expect(sent).toEqual(inboundBody);
  });

  it('refuses n above 1 with a 400 naming the field and the provider, and keeps n: 1 or null', () => {
    for (const n of [2, 3, 0, '2']) {
      const error = thrownBy(() => bodyOf(sameForm({ ...inboundBody, n })));
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).status).toBe(400);
      expect((error as GatewayError).message).toContain("Field 'n'");
      expect((error as GatewayError).message).toContain("'openrouter'");
    }
    expect(bodyOf(sameForm({ ...inboundBody, n: 1 })).n).toBe(1);
    expect(bodyOf(sameForm({ ...inboundBody, n: null })).n).toBeNull();
    const { n: _n, ...withoutN } = inboundBody;
    expect(bodyOf(sameForm(withoutN))).not.toHaveProperty('n');
  });

  it('keeps the client’s max_completion_tokens spelling, and drops stream_options when not streaming', () => {
    const { max_tokens: _dropped, ...rest } = inboundBody;
    const body = bodyOf(
      sameForm(
        { ...rest, max_completion_tokens: 9000, max_tokens: 9000 },
        { stream: false, maxTokens: 300 },
      ),
    );

    expect(body.max_completion_tokens).toBe(300);
    expect(body).not.toHaveProperty('max_tokens');
    expect(body.stream).toBe(false);
    expect(body).not.toHaveProperty('stream_options');
  });

  it('sends inlined images in place of their URLs when the provider cannot fetch them', () => {
    const withImage = {
      model: 'openai/gpt-4o-mini',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            {
              type: 'image_url',
              image_url: { url: 'https://images.example/cat.png', detail: 'low' },
            },
          ],
        },
      ],
    };
    const request = sameForm(withImage, {
      messages: [
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
          ],
        },
      ],
    });

    const inlined = bodyOf(request, config({ inlineImageUrls: true })).messages;
    const passed = bodyOf(request, config({ inlineImageUrls: false })).messages;

    expect(inlined).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          {
            type: 'image_url',
            image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' },
          },
        ],
      },
    ]);
    expect(passed).toEqual(withImage.messages);
  });
});

describe('a request from another form', () => {
  const weatherTool = {
    name: 'get_weather',
    description: 'The current weather in a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  };

  it('is built from the canonical request of a Messages-form conversation', () => {
    const request = canonical({
      system: 'You are a weather bot.',
      messages: [
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'Compare these skies.' },
            { type: 'image', mediaType: 'image/jpeg', data: '/9j/4AAQSkZJRg==' },
            { type: 'image', mediaType: 'image/*', url: 'https://images.example/sky.png' },
          ],
        },
        {
          role: 'assistant',
          parts: [
            { type: 'text', text: 'Let me check both cities.' },
            {
              type: 'tool_call',
              id: 'toolu_01',
              name: 'get_weather',
              arguments: '{"city":"Paris"}',
            },
            {
              type: 'tool_call',
              id: 'toolu_02',
              name: 'get_weather',
              arguments: '{"city":"Lima"}',
            },
          ],
        },
        {
          role: 'tool',
          parts: [
            {
              type: 'tool_result',
              toolCallId: 'toolu_01',
              name: 'get_weather',
              content: 'Sunny, 24°C',
            },
            {
              type: 'tool_result',
              toolCallId: 'toolu_02',
              name: 'get_weather',
              content: 'City not found',
              isError: true,
            },
          ],
        },
        { role: 'user', parts: [{ type: 'text', text: 'And tomorrow?' }] },
      ],
      maxTokens: 1024,
      temperature: 0.7,
      topP: 0.9,
      stop: ['\n\nHuman:'],
      tools: [weatherTool],
      toolChoice: 'required',
      stream: true,
      inbound: { form: 'messages', body: { model: 'openai/gpt-4o-mini' }, unmappedFields: [] },
    });

    expect(bodyOf(request)).toEqual({
      model: route.upstreamModel,
      messages: [
        { role: 'system', content: 'You are a weather bot.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare these skies.' },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQSkZJRg==' } },
            { type: 'image_url', image_url: { url: 'https://images.example/sky.png' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Let me check both cities.',
          tool_calls: [
            {
              id: 'toolu_01',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
            {
              id: 'toolu_02',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Lima"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_01', content: 'Sunny, 24°C' },
        { role: 'tool', tool_call_id: 'toolu_02', content: 'Error: City not found' },
        { role: 'user', content: 'And tomorrow?' },
      ],
      max_tokens: 1024,
      temperature: 0.7,
      top_p: 0.9,
      stop: ['\n\nHuman:'],
      tools: [{ type: 'function', function: weatherTool }],
      tool_choice: 'required',
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('is built from the canonical request of a Gemini-form conversation', () => {
    const request = canonical({
      messages: [
        {
          role: 'user',
          parts: [
            { type: 'image', mediaType: 'image/png', url: 'https://images.example/chart.png' },
            { type: 'text', text: 'Which city is warmer?' },
          ],
        },
        {
          role: 'assistant',
          parts: [
            {
              type: 'tool_call',
              id: 'call_1_0',
              name: 'get_weather',
              arguments: '{"city":"Oslo"}',
            },
          ],
        },
        {
          role: 'tool',
          parts: [
            {
              type: 'tool_result',
              toolCallId: 'call_1_0',
              name: 'get_weather',
              content: '{"celsius":4}',
            },
          ],
        },
      ],
      maxTokens: 200,
      stop: ['END', 'STOP'],
      seed: 42,
      tools: [{ name: 'get_weather', parameters: weatherTool.parameters }],
      toolChoice: { name: 'get_weather' },
      inbound: { form: 'gemini', body: { contents: [] }, unmappedFields: [] },
    });

    expect(bodyOf(request)).toEqual({
      model: route.upstreamModel,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'https://images.example/chart.png' } },
            { type: 'text', text: 'Which city is warmer?' },
          ],
        },
        {
          role: 'assistant',
          tool_calls: [
            {
              id: 'call_1_0',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1_0', content: '{"celsius":4}' },
      ],
      max_tokens: 200,
      stop: ['END', 'STOP'],
      seed: 42,
      tools: [
        { type: 'function', function: { name: 'get_weather', parameters: weatherTool.parameters } },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      stream: false,
    });
  });

  it('leaves out null fields, and tool_choice when it says nothing without tools', () => {
    const body = bodyOf(canonical({ maxTokens: null, toolChoice: 'auto' }));

    expect(body).toEqual({
      model: route.upstreamModel,
      messages: [{ role: 'user', content: 'Hello' }],
      stream: false,
    });
    expect(bodyOf(canonical({ toolChoice: 'none' }))).not.toHaveProperty('tool_choice');
    expect(bodyOf(canonical({ toolChoice: 'none', tools: [weatherTool] })).tool_choice).toBe(
      'none',
    );
    expect(bodyOf(canonical({ tools: [weatherTool] })).tool_choice).toBe('auto');
  });

  it('drops and reports a field that cannot be mapped; refuses it in strict mode', () => {
    const inbound = {
      form: 'messages' as const,
      body: {},
      unmappedFields: ['thinking', 'metadata'],
    };
    const translation = { dropped: [], adjusted: [] };
    const body = build(canonical({ inbound, translation }));
    expect(body).not.toHaveProperty('thinking');
    expect(translation).toEqual({ dropped: ['thinking', 'metadata'], adjusted: [] });

    const error = thrownBy(() => build(canonical({ inbound, requireParameters: true })));
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(400);
    expect((error as GatewayError).message).toContain("'thinking'");
    expect((error as GatewayError).message).toContain("'openrouter'");
  });

  it('refuses what the model sees even without strict mode: a block it cannot carry', () => {
    const inbound = {
      form: 'messages' as const,
      body: {},
      unmappedFields: ['messages.0.content.1.cache_control', 'messages.0.content.2'],
    };
    const error = thrownBy(() => build(canonical({ inbound })));
    expect((error as GatewayError).status).toBe(400);
    expect((error as GatewayError).message).toContain("'messages.0.content.2'");
  });

  it('keeps the first stop sequences the server takes, and reports the change', () => {
    const translation = { dropped: [], adjusted: [] };
    expect(bodyOf(canonical({ stop: ['a', 'b', 'c', 'd', 'e'], translation })).stop).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
    expect(translation.adjusted).toEqual(['stop=5 sequences->4 sequences']);

    const error = thrownBy(() =>
      build(canonical({ stop: ['a', 'b', 'c', 'd', 'e'], requireParameters: true })),
    );
    expect((error as GatewayError).status).toBe(400);
    expect((error as GatewayError).message).toContain('at most 4');
    expect(bodyOf(canonical({ stop: ['a', 'b', 'c', 'd'] })).stop).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('the call', () => {
  it('goes to the chat-completions path of the base URL, with the key as a Bearer token', () => {
    const call = build(canonical());

    expect(openAiCompatibleAdapter.kind).toBe('openai-compatible');
    expect(call.url).toBe('https://openrouter.ai/api/v1/chat/completions');
    expect(call.headers).toEqual({
      'HTTP-Referer': 'https://workbench.example',
      'X-Title': 'Workbench',
      Authorization: `Bearer ${apiKey}`,
    });
  });

  it('carries the key nowhere but the Authorization header', () => {
    const call = build(canonical(), config({ headers: { authorization: 'Bearer stale' } }));
    const elsewhere = Object.entries(call.headers).filter(([name]) => name !== 'Authorization');

    expect(call.headers.Authorization).toBe(`Bearer ${apiKey}`);
    expect(elsewhere).toEqual([]);
    expect(call.url).not.toContain(apiKey);
    expect(JSON.stringify(call.body)).not.toContain(apiKey);
  });

  it('sends no Authorization at all to a server without a key', () => {
    const call = build(
      canonical(),
      config({ id: 'local-llama', baseUrl: 'http://127.0.0.1:8080/v1', apiKey: '', headers: {} }),
    );

    expect(call.url).toBe('http://127.0.0.1:8080/v1/chat/completions');
    expect(call.headers).toEqual({});
  });
});
