/**
 * The body sent to Gemini: a Gemini-form request passes through with only its output bound
 * replaced; requests from the other forms are rebuilt from the canonical request, and what Gemini
 * cannot take is refused with a 400 naming the field and the provider.
 */
import type { CanonicalRequest } from '../../canonical/model';
import { GatewayError } from '../../errors';
import { geminiAdapter } from './index';
import { FOREIGN_THOUGHT_SIGNATURE } from './canonical-to-request';
import type { GeminiRequestBody } from './wire-schema';
import { canonicalRequest, providerConfig, route } from '../../../testing/providers/gemini-kit';

const config = providerConfig();
const sentBody = (request: CanonicalRequest) =>
  geminiAdapter.buildCall(request, route, config).body as Record<string, unknown>;
/** The body built from a request of another form. */
const bodyOf = (request: CanonicalRequest) => sentBody(request) as GeminiRequestBody;

/** The error a call throws, so a test can say what it must be (and fail when nothing is thrown). */
function thrownBy(build: () => unknown): unknown {
  try {
    build();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

const png =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('Gemini body from a Gemini-form request', () => {
  // The documented chat request as the Gemini form hands it on (field names in camelCase), with
  // the fields the gateway itself does not understand.
  const inbound = () => ({
    systemInstruction: { parts: [{ text: 'You are a cat. Your name is Neko.' }] },
    contents: [
      { role: 'user', parts: [{ text: 'Hello there' }] },
      {
        role: 'model',
        parts: [
          // Sealed by the gateway for this provider (canonical/reasoning-signature.ts).
          { text: 'Great to meet you.', thoughtSignature: 'gw1:google-main:CiIBVKhc7oDzQa3qXyC1' },
          { functionCall: { name: 'count_paws', args: { dogs: 2 } } },
        ],
      },
      {
        role: 'user',
        parts: [{ functionResponse: { name: 'count_paws', response: { paws: 8 } } }],
      },
    ],
    generationConfig: {
      stopSequences: ['Title'],
      temperature: 1.0,
      maxOutputTokens: 800,
      topP: 0.8,
      topK: 10,
      seed: 42,
      responseMimeType: 'application/json',
      responseSchema: { type: 'OBJECT', properties: { paws: { type: 'INTEGER' } } },
      thinkingConfig: { thinkingBudget: 0 },
    },
    safetySettings: [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', threshold: 'BLOCK_ONLY_HIGH' }],
    tools: [
      { functionDeclarations: [{ name: 'count_paws', parameters: { type: 'OBJECT' } }] },
      { googleSearch: {} },
    ],
    toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
    cachedContent: 'cachedContents/abc123',
  });
  const sameForm = (maxTokens: number | null, unmappedFields: string[] = []) =>
    canonicalRequest({
      maxTokens,
      // What the canonical side says must not leak into a body that passes through.
      system: 'ignored',
      temperature: 0.1,
      stop: ['a', 'b', 'c', 'd', 'e', 'f'],
      inbound: { form: 'gemini', body: inbound(), unmappedFields },
    });

  /** The inbound contents with the signature opened, as the vendor made it. */
  const openedContents = () => {
    const contents = inbound().contents;
    contents[1]!.parts[0] = {
      text: 'Great to meet you.',
      thoughtSignature: 'CiIBVKhc7oDzQa3qXyC1',
    };
    return contents;
  };

  it('sends the caller’s body unchanged except the output bound and its own signatures opened', () => {
    const body = sentBody(sameForm(300));
    const expected = inbound();
    expect(body).toEqual({
      ...expected,
      contents: openedContents(),
      generationConfig: { ...expected.generationConfig, maxOutputTokens: 300 },
    });
    expect(body.safetySettings).toEqual(expected.safetySettings);
    expect(body).toHaveProperty(
      ['generationConfig', 'responseSchema'],
      expected.generationConfig.responseSchema,
    );
    expect(body).not.toHaveProperty('model');
  });

  it('adds the output bound to a body that had no generation config, and leaves the inbound body alone', () => {
    const request = canonicalRequest({
      maxTokens: 64,
      inbound: { form: 'gemini', body: { contents: inbound().contents }, unmappedFields: [] },
    });
    expect(sentBody(request)).toEqual({
      contents: openedContents(),
      generationConfig: { maxOutputTokens: 64 },
    });
    expect(request.inbound!.body).not.toHaveProperty('generationConfig');
  });

  it('does not send a model field: the model is in the URL', () => {
    const request = canonicalRequest({
      inbound: {
        form: 'gemini',
        body: { model: 'google/gemini-2.5-flash', contents: [] },
        unmappedFields: [],
      },
    });
    expect(sentBody(request)).not.toHaveProperty('model');
  });

  it('does not refuse fields the canonical request could not carry: they go through', () => {
    expect(sentBody(sameForm(300, ['safetySettings', 'cachedContent']))).toHaveProperty(
      'cachedContent',
      'cachedContents/abc123',
    );
  });
});

describe('Gemini body from a chat-completions request', () => {
  // A chat-completions conversation as the form converter reads it: system, an image, two
  // parallel tool calls and their results (named only by the call id), then a follow-up.
  const request = (overrides: Partial<CanonicalRequest> = {}) =>
    canonicalRequest({
      system: 'You are a helpful assistant.',
      messages: [
        {
          role: 'user',
          parts: [
            {
              type: 'text',
              text: 'What is in this picture, and what is the weather in Oslo and Bergen?',
            },
            { type: 'image', mediaType: 'image/png', data: png },
          ],
        },
        {
          role: 'assistant',
          parts: [
            { type: 'text', text: 'Let me check.' },
            {
              type: 'tool_call',
              id: 'call_abc',
              name: 'get_weather',
              arguments: '{"city":"Oslo"}',
            },
            { type: 'tool_call', id: 'call_def', name: 'get_time', arguments: '{"city":"Bergen"}' },
          ],
        },
        {
          role: 'tool',
          parts: [{ type: 'tool_result', toolCallId: 'call_abc', content: '{"celsius":4}' }],
        },
        {
          role: 'tool',
          parts: [{ type: 'tool_result', toolCallId: 'call_def', content: '14:05' }],
        },
        { role: 'user', parts: [{ type: 'text', text: 'Thanks. And tomorrow?' }] },
      ],
      maxTokens: 500,
      temperature: 0.7,
      topP: 0.9,
      stop: ['END', 'STOP'],
      seed: 7,
      tools: [
        {
          name: 'get_weather',
          description: 'The weather in a city',
          parameters: {
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
            additionalProperties: false,
          },
        },
        {
          name: 'get_time',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ],
      toolChoice: 'auto',
      inbound: {
        form: 'chat_completions',
        body: { model: 'google/gemini-2.5-flash' },
        unmappedFields: [],
      },
      ...overrides,
    });

  it('builds the whole body: system, turns, tool calls, results named from their calls, config, tools', () => {
    expect(bodyOf(request())).toEqual({
      systemInstruction: { parts: [{ text: 'You are a helpful assistant.' }] },
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'What is in this picture, and what is the weather in Oslo and Bergen?' },
            { inlineData: { mimeType: 'image/png', data: png } },
          ],
        },
        {
          role: 'model',
          parts: [
            { text: 'Let me check.' },
            {
              functionCall: { name: 'get_weather', args: { city: 'Oslo' }, id: 'call_abc' },
              thoughtSignature: FOREIGN_THOUGHT_SIGNATURE,
            },
            { functionCall: { name: 'get_time', args: { city: 'Bergen' }, id: 'call_def' } },
          ],
        },
        {
          // Both results and the follow-up are one user turn: the vendor wants roles to alternate.
          role: 'user',
          parts: [
            // Each with its call's id, as the vendor pairs them.
            {
              functionResponse: { name: 'get_weather', response: { celsius: 4 }, id: 'call_abc' },
            },
            {
              functionResponse: {
                name: 'get_time',
                response: { content: '14:05' },
                id: 'call_def',
              },
            },
            { text: 'Thanks. And tomorrow?' },
          ],
        },
      ],
      generationConfig: {
        maxOutputTokens: 500,
        temperature: 0.7,
        topP: 0.9,
        stopSequences: ['END', 'STOP'],
        seed: 7,
      },
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'The weather in a city',
              parametersJsonSchema: {
                type: 'object',
                properties: { city: { type: 'string' } },
                required: ['city'],
                additionalProperties: false,
              },
            },
            {
              name: 'get_time',
              parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } },
            },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
    });
  });

  it('uses a result’s own function name when it has one', () => {
    const body = bodyOf(
      request({
        messages: [
          { role: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
          {
            role: 'assistant',
            parts: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{}' }],
          },
          {
            role: 'tool',
            parts: [
              {
                type: 'tool_result',
                toolCallId: 'call_1',
                name: 'weather_lookup',
                content: 'sunny',
              },
            ],
          },
        ],
      }),
    );
    expect(body.contents[2]?.parts).toEqual([
      {
        functionResponse: { name: 'weather_lookup', response: { content: 'sunny' }, id: 'call_1' },
      },
    ]);
  });

  it('sends no id with a result whose call is not in the conversation', () => {
    const body = bodyOf(
      request({
        messages: [
          {
            role: 'tool',
            parts: [
              {
                type: 'tool_result',
                toolCallId: 'call_gone',
                name: 'get_weather',
                content: 'sunny',
              },
            ],
          },
        ],
      }),
    );
    expect(body.contents[0]?.parts).toEqual([
      { functionResponse: { name: 'get_weather', response: { content: 'sunny' } } },
    ]);
  });

  it('maps each tool choice to the function-calling mode', () => {
    const modeFor = (toolChoice: CanonicalRequest['toolChoice']) =>
      bodyOf(request({ toolChoice })).toolConfig?.functionCallingConfig;
    expect(modeFor('auto')).toEqual({ mode: 'AUTO' });
    expect(modeFor('none')).toEqual({ mode: 'NONE' });
    expect(modeFor('required')).toEqual({ mode: 'ANY' });
    expect(modeFor({ name: 'get_time' })).toEqual({
      mode: 'ANY',
      allowedFunctionNames: ['get_time'],
    });
  });

  it('leaves out what was not asked for: no system, no config, no tools, no tool config', () => {
    const body = bodyOf(
      canonicalRequest({
        maxTokens: null,
        inbound: { form: 'chat_completions', body: {}, unmappedFields: [] },
      }),
    );
    expect(body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Hello there' }] }] });
  });

  it('sends an image left as a URL by reference, with a concrete type', () => {
    const body = bodyOf(
      canonicalRequest({
        messages: [
          {
            role: 'user',
            parts: [
              { type: 'image', mediaType: 'image/*', url: 'https://example.com/cat' },
              { type: 'image', mediaType: 'image/webp', url: 'https://example.com/cat.webp' },
            ],
          },
        ],
      }),
    );
    expect(body.contents[0]?.parts).toEqual([
      { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/cat' } },
      { fileData: { mimeType: 'image/webp', fileUri: 'https://example.com/cat.webp' } },
    ]);
  });

  it('drops a field the canonical request could not carry; strict mode refuses it by name', () => {
    const inbound = {
      form: 'chat_completions' as const,
      body: {},
      unmappedFields: ['logprobs', 'n'],
    };
    const translation = { dropped: [], adjusted: [] };
    bodyOf(request({ inbound, translation }));
    expect(translation.dropped).toEqual(['logprobs', 'n']);
    const error = thrownBy(() => bodyOf(request({ inbound, requireParameters: true })));
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(400);
    expect((error as GatewayError).message).toContain("'logprobs'");
    expect((error as GatewayError).message).toContain("'google-main'");
  });

  it('keeps the first five stop sequences, reported; strict mode refuses more', () => {
    const translation = { dropped: [], adjusted: [] };
    const kept = bodyOf(request({ stop: ['a', 'b', 'c', 'd', 'e', 'f'], translation }));
    expect(kept.generationConfig?.stopSequences).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(translation.adjusted).toEqual(['stop=6 sequences->5 sequences']);
    const error = thrownBy(() =>
      bodyOf(request({ stop: ['a', 'b', 'c', 'd', 'e', 'f'], requireParameters: true })),
    );
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(400);
    expect((error as GatewayError).message).toContain("'stop'");
    expect((error as GatewayError).message).toContain("'google-main'");
    const five = bodyOf(request({ stop: ['a', 'b', 'c', 'd', 'e'] }));
    expect(five.generationConfig?.stopSequences).toHaveLength(5);
  });

  it('refuses a tool result whose function cannot be named', () => {
    const error = thrownBy(() =>
      bodyOf(
        request({
          messages: [
            { role: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
            {
              role: 'tool',
              parts: [{ type: 'tool_result', toolCallId: 'call_unknown', content: 'sunny' }],
            },
          ],
        }),
      ),
    );
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(400);
    expect((error as GatewayError).message).toContain("'messages'");
    expect((error as GatewayError).message).toContain("'google-main'");
  });
});

describe('Gemini body from a Messages request', () => {
  // A Messages conversation as the form converter reads it: a base64 image, a tool_use, and a
  // failed tool_result in the next user message, named from the earlier call by its id.
  const request = canonicalRequest({
    system: 'Answer briefly.',
    messages: [
      {
        role: 'user',
        parts: [
          { type: 'image', mediaType: 'image/png', data: png },
          { type: 'text', text: 'Look up this product.' },
        ],
      },
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'toolu_01A', name: 'lookup', arguments: '{"sku":"X-1"}' }],
      },
      {
        role: 'tool',
        parts: [
          { type: 'tool_result', toolCallId: 'toolu_01A', content: 'not found', isError: true },
        ],
      },
      { role: 'user', parts: [{ type: 'text', text: 'Try again.' }] },
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'toolu_01B', name: 'lookup', arguments: 'not json' }],
      },
      {
        role: 'tool',
        parts: [
          {
            type: 'tool_result',
            toolCallId: 'toolu_01B',
            content: '{"reason":"timeout"}',
            isError: true,
          },
        ],
      },
      { role: 'assistant', parts: [{ type: 'text', text: '' }] },
    ],
    maxTokens: 1024,
    stop: ['###'],
    tools: [
      { name: 'lookup', parameters: { type: 'object', properties: { sku: { type: 'string' } } } },
    ],
    toolChoice: { name: 'lookup' },
    inbound: {
      form: 'messages',
      body: { model: 'google/gemini-2.5-flash', max_tokens: 1024 },
      unmappedFields: [],
    },
  });

  it('builds the turns, marking failed tool results as errors', () => {
    const body = bodyOf(request);
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'Answer briefly.' }] });
    expect(body.contents).toEqual([
      {
        role: 'user',
        parts: [
          { inlineData: { mimeType: 'image/png', data: png } },
          { text: 'Look up this product.' },
        ],
      },
      {
        role: 'model',
        parts: [
          {
            functionCall: { name: 'lookup', args: { sku: 'X-1' }, id: 'toolu_01A' },
            thoughtSignature: FOREIGN_THOUGHT_SIGNATURE,
          },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            functionResponse: { name: 'lookup', response: { error: 'not found' }, id: 'toolu_01A' },
          },
          { text: 'Try again.' },
        ],
      },
      {
        role: 'model',
        // Arguments that are not a JSON object are sent as an empty one.
        parts: [
          {
            functionCall: { name: 'lookup', args: {}, id: 'toolu_01B' },
            thoughtSignature: FOREIGN_THOUGHT_SIGNATURE,
          },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              name: 'lookup',
              response: { error: { reason: 'timeout' } },
              id: 'toolu_01B',
            },
          },
        ],
      },
      // The empty assistant turn is left out: the vendor refuses a content without parts.
    ]);
    expect(body.generationConfig).toEqual({ maxOutputTokens: 1024, stopSequences: ['###'] });
    expect(body.toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['lookup'] },
    });
  });
});
