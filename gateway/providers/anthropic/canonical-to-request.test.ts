/**
 * The outgoing Messages body: same-form requests pass through with only the model and the
 * gateway's bounds replaced; other forms are rebuilt, in alternating turns, or refused with a 400
 * naming the field and the provider.
 */
import type { CanonicalRequest } from '../../canonical/model';
import { GatewayError } from '../../errors';
import { anthropicAdapter } from './index';
import {
  testConfig,
  testRequest,
  testRoute,
  thrownBy,
} from '../../../testing/providers/anthropic-kit';

const bodyOf = (request: CanonicalRequest, config = testConfig()) =>
  anthropicAdapter.buildCall(request, testRoute, config).body as Record<string, unknown>;

const weatherTool = {
  name: 'get_weather',
  description: 'Get the current weather in a given location',
  parameters: {
    type: 'object',
    properties: {
      location: { type: 'string' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    },
    required: ['location'],
  },
};

describe('a request that arrived in the Messages form', () => {
  const inboundBody = {
    model: 'anthropic/claude-sonnet-4.5',
    max_tokens: 20_000,
    system: [
      { type: 'text', text: 'You answer from the attached handbook.' },
      { type: 'text', text: 'HANDBOOK…', cache_control: { type: 'ephemeral' } },
    ],
    messages: [
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text: 'What is the leave policy?',
            cache_control: { type: 'ephemeral', ttl: '1h' },
          },
        ],
      },
    ],
    thinking: { type: 'enabled', budget_tokens: 10_000 },
    metadata: { user_id: 'user-42' },
    top_k: 40,
    service_tier: 'standard_only',
    stream: false,
  };
  const sameForm = (overrides: Partial<CanonicalRequest> = {}) =>
    testRequest({
      // The canonical fields differ from the body on purpose: the body must win.
      system: 'a canonical system prompt that must not be used',
      maxTokens: 12_000,
      stream: true,
      inbound: {
        form: 'messages',
        body: structuredClone(inboundBody),
        unmappedFields: ['thinking', 'top_k'],
      },
      ...overrides,
    });

  it('keeps the body as sent, replacing only the model, max_tokens and stream', () => {
    expect(bodyOf(sameForm())).toEqual({
      ...inboundBody,
      model: testRoute.upstreamModel,
      max_tokens: 12_000,
      stream: true,
    });
  });

  it('does not refuse fields only another form would have to refuse', () => {
    // Unmapped fields and a seed are for cross-form upstreams to refuse; this one understands them.
    expect(() => bodyOf(sameForm({ seed: 7 }))).not.toThrow();
  });
});

describe('a request from another form', () => {
  it('rebuilds a chat-completions conversation: system, tool calls and results in alternating turns, images', () => {
    const body = bodyOf(
      testRequest({
        system: 'You are a weather bot.',
        messages: [
          { role: 'user', parts: [{ type: 'text', text: 'Weather in Paris and Oslo?' }] },
          {
            role: 'assistant',
            parts: [
              // Chat-completion clients send `content: ""` beside tool calls; the vendor refuses empty text.
              { type: 'text', text: '' },
              {
                type: 'tool_call',
                id: 'call_1',
                name: 'get_weather',
                arguments: '{"location":"Paris"}',
              },
              { type: 'tool_call', id: 'call_2', name: 'get_weather', arguments: 'not json' },
            ],
          },
          {
            role: 'tool',
            parts: [{ type: 'tool_result', toolCallId: 'call_1', content: '18°C, sunny' }],
          },
          {
            role: 'tool',
            parts: [
              { type: 'tool_result', toolCallId: 'call_2', content: 'unknown city', isError: true },
            ],
          },
          {
            role: 'user',
            parts: [
              { type: 'text', text: 'And what is in these pictures?' },
              { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
              { type: 'image', mediaType: 'image/jpeg', url: 'https://images.example/cat.jpg' },
            ],
          },
        ],
        temperature: 0.2,
        topP: 0.9,
        stop: ['\n\nHuman:', 'END'],
        tools: [weatherTool],
        toolChoice: 'auto',
        stream: true,
        inbound: {
          form: 'chat_completions',
          body: { model: 'x', messages: [] },
          unmappedFields: [],
        },
      }),
    );
    expect(body).toEqual({
      model: testRoute.upstreamModel,
      max_tokens: 1024,
      system: 'You are a weather bot.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Oslo?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { location: 'Paris' } },
            { type: 'tool_use', id: 'call_2', name: 'get_weather', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: '18°C, sunny' },
            { type: 'tool_result', tool_use_id: 'call_2', content: 'unknown city', is_error: true },
            { type: 'text', text: 'And what is in these pictures?' },
            {
              type: 'image',
              source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
            },
            { type: 'image', source: { type: 'url', url: 'https://images.example/cat.jpg' } },
          ],
        },
      ],
      temperature: 0.2,
      top_p: 0.9,
      stop_sequences: ['\n\nHuman:', 'END'],
      tools: [
        {
          name: weatherTool.name,
          description: weatherTool.description,
          input_schema: weatherTool.parameters,
        },
      ],
      tool_choice: { type: 'auto' },
      stream: true,
    });
  });

  it('rebuilds a Gemini conversation, putting tool results ahead of the text of the same turn', () => {
    const body = bodyOf(
      testRequest({
        system: 'Be brief.',
        messages: [
          {
            role: 'user',
            parts: [
              { type: 'image', mediaType: 'image/jpeg', url: 'https://images.example/sky.jpg' },
            ],
          },
          {
            role: 'assistant',
            parts: [
              {
                type: 'tool_call',
                id: 'get_weather-1-0',
                name: 'get_weather',
                arguments: '{"location":"Rome"}',
              },
            ],
          },
          // Text then results, in two turns: merged into one user turn, with the results first.
          { role: 'user', parts: [{ type: 'text', text: 'Here is the result.' }] },
          {
            role: 'tool',
            parts: [
              {
                type: 'tool_result',
                toolCallId: 'get_weather-1-0',
                name: 'get_weather',
                content: '{"temp":21}',
              },
            ],
          },
          { role: 'assistant', parts: [{ type: 'text', text: 'It is 21°C.' }] },
          { role: 'assistant', parts: [{ type: 'text', text: 'Anything else?' }] },
        ],
        temperature: 1,
        stop: ['STOP'],
        tools: [
          { name: 'get_weather', parameters: { properties: { location: { type: 'string' } } } },
        ],
        toolChoice: 'required',
        inbound: { form: 'gemini', body: { contents: [] }, unmappedFields: [] },
      }),
    );
    expect(body.system).toBe('Be brief.');
    expect(body.temperature).toBe(1);
    expect(body.stop_sequences).toEqual(['STOP']);
    expect(body).not.toHaveProperty('top_p');
    expect(body.stream).toBe(false);
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'url', url: 'https://images.example/sky.jpg' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 'get_weather-1-0',
            name: 'get_weather',
            input: { location: 'Rome' },
          },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'get_weather-1-0', content: '{"temp":21}' },
          { type: 'text', text: 'Here is the result.' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'It is 21°C.' },
          { type: 'text', text: 'Anything else?' },
        ],
      },
    ]);
    // A schema without a type is an object schema to the vendor, which insists on saying so.
    expect(body.tools).toEqual([
      {
        name: 'get_weather',
        input_schema: { type: 'object', properties: { location: { type: 'string' } } },
      },
    ]);
    expect(body.tool_choice).toEqual({ type: 'any' });
  });

  it.each([
    ['auto', true, { type: 'auto' }],
    ['none', true, { type: 'none' }],
    ['required', true, { type: 'any' }],
    [{ name: 'get_weather' }, true, { type: 'tool', name: 'get_weather' }],
    ['auto', false, undefined],
    ['none', false, undefined],
  ] as const)('maps tool choice %j (tools: %s) to %j', (toolChoice, withTools, expected) => {
    const body = bodyOf(testRequest({ toolChoice, tools: withTools ? [weatherTool] : [] }));
    expect(body.tool_choice).toEqual(expected);
    expect('tools' in body).toBe(withTools);
  });

  it('sends no system, sampling or stop fields the request did not set', () => {
    const body = bodyOf(testRequest());
    expect(Object.keys(body).sort()).toEqual(['max_tokens', 'messages', 'model', 'stream']);
  });

  it('falls back to the route’s output bound when the request names none, as the vendor requires one', () => {
    expect(bodyOf(testRequest({ maxTokens: null })).max_tokens).toBe(testRoute.maxCompletionTokens);
  });

  describe('drops or adjusts what the vendor cannot honour, and says so', () => {
    const reported = (overrides: Partial<CanonicalRequest>) => {
      const translation = { dropped: [] as string[], adjusted: [] as string[] };
      const body = bodyOf(testRequest({ ...overrides, translation }));
      return { body, translation };
    };
    const refusal = (request: CanonicalRequest) => {
      const error = thrownBy(() => bodyOf(request));
      expect(error).toBeInstanceOf(GatewayError);
      const gatewayError = error as GatewayError;
      expect(gatewayError.status).toBe(400);
      expect(gatewayError.message).toContain(`'${testConfig().id}'`);
      return gatewayError.message;
    };

    it('a seed is dropped; strict mode refuses it', () => {
      const { body, translation } = reported({ seed: 42 });
      expect(body).not.toHaveProperty('seed');
      expect(translation.dropped).toEqual(['seed']);
      expect(refusal(testRequest({ seed: 42, requireParameters: true }))).toContain("Field 'seed'");
    });

    it('a temperature above 1 becomes 1; strict mode refuses it', () => {
      const { body, translation } = reported({ temperature: 1.5 });
      expect(body.temperature).toBe(1);
      expect(translation.adjusted).toEqual(['temperature=1.5->1']);
      const message = refusal(testRequest({ temperature: 1.5, requireParameters: true }));
      expect(message).toContain("Field 'temperature'");
      expect(message).toContain('0 to 1');
    });

    it('a field the canonical request could not carry is dropped; strict mode refuses it', () => {
      const inbound = {
        form: 'chat_completions' as const,
        body: {},
        unmappedFields: ['logit_bias', 'logprobs'],
      };
      expect(reported({ inbound }).translation.dropped).toEqual(['logit_bias', 'logprobs']);
      const message = refusal(testRequest({ inbound, requireParameters: true }));
      expect(message).toContain("Field 'logit_bias'");
    });

    it('system turns inside the conversation join the system text, in order', () => {
      const { body } = reported({
        system: 'Be brief.',
        messages: [
          { role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
          { role: 'system', parts: [{ type: 'text', text: 'Now in French.' }] },
          { role: 'user', parts: [{ type: 'text', text: 'How are you?' }] },
        ],
      });
      expect(body.system).toBe('Be brief.\n\nNow in French.');
      expect(body.messages).toEqual([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Hi' },
            { type: 'text', text: 'How are you?' },
          ],
        },
      ]);
    });
  });
});

describe('reasoning toward a model that lists it', () => {
  const route = {
    ...testRoute,
    supportedParameters: [...testRoute.supportedParameters, 'reasoning'],
  };
  const build = (overrides: Partial<CanonicalRequest>) =>
    anthropicAdapter.buildCall(
      testRequest({ maxTokens: 20_000, ...overrides }),
      route,
      testConfig(),
    ).body as Record<string, unknown>;

  it('sends a budget for an effort, without temperature or a low top_p', () => {
    const body = build({
      reasoning: { effort: 'low', budgetTokens: null, includeText: true },
      temperature: 0.2,
      topP: 0.5,
    });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2_048 });
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('top_p');
  });

  it('sends no thinking with a forced tool, which the vendor refuses', () => {
    const body = build({
      reasoning: { effort: 'high', budgetTokens: null, includeText: true },
      tools: [weatherTool],
      toolChoice: 'required',
    });
    expect(body).not.toHaveProperty('thinking');
    expect(body.tool_choice).toEqual({ type: 'any' });
  });

  it('sends no thinking when max_tokens leaves no room for the smallest budget', () => {
    const body = build({
      maxTokens: 1_000,
      reasoning: { effort: null, budgetTokens: 4_000, includeText: true },
    });
    expect(body).not.toHaveProperty('thinking');
  });

  it('hands back only its own thinking blocks, signed as it made them', () => {
    const body = build({
      messages: [
        { role: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
        {
          role: 'assistant',
          parts: [
            { type: 'reasoning', text: 'mine', signature: 'c2ln', providerId: 'claude-direct' },
            { type: 'reasoning', text: '', encrypted: 'ZW5j', providerId: 'claude-direct' },
            { type: 'reasoning', text: 'theirs', signature: 'b3Ro', providerId: 'gem' },
            { type: 'reasoning', text: 'unsigned' },
            { type: 'text', text: 'Sunny.' },
          ],
        },
        { role: 'user', parts: [{ type: 'text', text: 'Thanks' }] },
      ],
    });
    expect((body.messages as Array<{ content: unknown[] }>)[1]!.content).toEqual([
      { type: 'thinking', thinking: 'mine', signature: 'c2ln' },
      { type: 'redacted_thinking', data: 'ZW5j' },
      { type: 'text', text: 'Sunny.' },
    ]);
  });

  describe('a tool-call turn without the thinking block this provider signed', () => {
    const toolTurn = (first: CanonicalRequest['messages'][number]['parts']) => [
      { role: 'user' as const, parts: [{ type: 'text' as const, text: 'Weather?' }] },
      {
        role: 'assistant' as const,
        parts: [
          ...first,
          { type: 'tool_call' as const, id: 'toolu_1', name: 'get_weather', arguments: '{}' },
        ],
      },
      {
        role: 'tool' as const,
        parts: [{ type: 'tool_result' as const, toolCallId: 'toolu_1', content: 'Sunny' }],
      },
    ];
    const reasoning = { effort: 'high' as const, budgetTokens: null, includeText: true };
    const inbound = {
      form: 'chat_completions' as const,
      body: { reasoning_effort: 'high' },
      unmappedFields: [],
    };

    it('goes without thinking, reported, where the vendor would refuse it', () => {
      const translation = { dropped: [] as string[], adjusted: [] as string[] };
      const body = build({
        reasoning,
        inbound,
        translation,
        tools: [weatherTool],
        messages: toolTurn([{ type: 'reasoning', text: 'unsigned' }]),
      });
      expect(body).not.toHaveProperty('thinking');
      expect(translation.adjusted).toEqual(['reasoning_effort=on->off']);
    });

    it('keeps thinking when its own signed block opens the turn', () => {
      const translation = { dropped: [] as string[], adjusted: [] as string[] };
      const body = build({
        reasoning,
        inbound,
        translation,
        tools: [weatherTool],
        messages: toolTurn([
          { type: 'reasoning', text: 'mine', signature: 'c2ln', providerId: 'claude-direct' },
        ]),
      });
      expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: expect.any(Number) });
      expect(translation.adjusted).toEqual([]);
    });

    it('is refused in strict mode instead', () => {
      const error = thrownBy(() =>
        build({
          reasoning,
          inbound,
          requireParameters: true,
          tools: [weatherTool],
          messages: toolTurn([]),
        }),
      );
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).status).toBe(400);
    });

    it('goes without thinking on the same form too, where another provider made the block', () => {
      const translation = { dropped: [] as string[], adjusted: [] as string[] };
      const messages = [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'theirs', signature: 'gw1:other:c2ln' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' }] },
      ];
      const thinking = { type: 'enabled', budget_tokens: 2_048 };
      const body = build({
        translation,
        inbound: { form: 'messages', body: { messages, thinking }, unmappedFields: [] },
      });
      expect(body).not.toHaveProperty('thinking');
      expect((body.messages as Array<{ content: unknown[] }>)[1]!.content).toEqual([
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} },
      ]);
      expect(translation.adjusted).toEqual(['thinking=enabled->disabled']);
    });
  });

  it('sends a json_schema response format as output_config.format', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const body = build({
      responseFormat: { type: 'json_schema', name: 'x', schema, strict: true },
    });
    expect(body.output_config).toEqual({ format: { type: 'json_schema', schema } });
  });
});
