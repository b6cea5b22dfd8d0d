import type { ChatRequest } from '../../../../contract/workbench-api';
import { generateAnthropicTypeScript } from './anthropic-typescript';
import { generateCurl } from './curl';
import { generateGeminiTypeScript } from './gemini-typescript';
import { codeTargetFit, codeTargets } from './index';
import { generateOpenAiPython } from './openai-python';
import { generateOpenAiTypeScript } from './openai-typescript';
import { gatewayRoot, openAiBaseUrl, redactKeys } from './shared';

const baseUrl = 'http://127.0.0.1:8787';

const request: ChatRequest['request'] = {
  model: 'sim/chat-standard',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: "What's the weather in Oslo?" },
  ],
  max_tokens: 256,
  temperature: 0.2,
  stop: ['END'],
  stream: true,
};

const toolRequest: ChatRequest['request'] = {
  model: 'sim/vision-pro',
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Weather here?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      ],
    },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
        },
      ],
    },
    { role: 'tool', content: '{"temperature_c":21}', tool_call_id: 'call_1' },
  ],
  max_tokens: 128,
  seed: 7,
  stream: false,
  tools: [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Current weather for a city.',
        parameters: {
          type: 'object',
          properties: { city: { type: 'string' } },
          required: ['city'],
        },
      },
    },
  ],
};

describe('base addresses', () => {
  it('uses /v1 for the chat-completion clients and the bare root for the native ones', () => {
    expect(openAiBaseUrl('https://gw.example.com/v1/')).toBe('https://gw.example.com/v1');
    expect(gatewayRoot('https://gw.example.com/v1')).toBe('https://gw.example.com');
  });

  it('drops credentials and a ?key= from the configured address', () => {
    expect(gatewayRoot('https://user:secret@gw.example.com/v1?key=sk-abcdefghijklmnop')).toBe(
      'https://gw.example.com',
    );
  });
});

describe('generators', () => {
  it('curl', () => {
    expect(generateCurl({ gatewayBaseUrl: baseUrl, request })).toMatchInlineSnapshot(`
      "curl -N http://127.0.0.1:8787/v1/chat/completions \\
        -H "Authorization: Bearer $GATEWAY_API_KEY" \\
        -H "Content-Type: application/json" \\
        -d @- <<'JSON'
      {
        "model": "sim/chat-standard",
        "messages": [
          {
            "role": "system",
            "content": "Be brief."
          },
          {
            "role": "user",
            "content": "What's the weather in Oslo?"
          }
        ],
        "max_tokens": 256,
        "temperature": 0.2,
        "stop": [
          "END"
        ],
        "stream": true
      }
      JSON"
    `);
  });

  it('TypeScript with openai', () => {
    expect(generateOpenAiTypeScript({ gatewayBaseUrl: baseUrl, request })).toMatchInlineSnapshot(`
      "import OpenAI from 'openai';

      const client = new OpenAI({
        apiKey: process.env.GATEWAY_API_KEY,
        baseURL: "http://127.0.0.1:8787/v1",
        // The gateway retries and falls back itself: no SDK retries on top.
        maxRetries: 0,
      });

      const stream = await client.chat.completions.create({
        "model": "sim/chat-standard",
        "messages": [
          {
            "role": "system",
            "content": "Be brief."
          },
          {
            "role": "user",
            "content": "What's the weather in Oslo?"
          }
        ],
        "max_tokens": 256,
        "temperature": 0.2,
        "stop": [
          "END"
        ],
        "stream": true
      });

      for await (const chunk of stream) {
        process.stdout.write(chunk.choices[0]?.delta?.content ?? '');
      }
      process.stdout.write('\\n');"
    `);
  });

  it('Python with openai', () => {
    expect(generateOpenAiPython({ gatewayBaseUrl: baseUrl, request: toolRequest }))
      .toMatchInlineSnapshot(`
        "import os

        from openai import OpenAI

        client = OpenAI(
            api_key=os.environ["GATEWAY_API_KEY"],
            base_url="http://127.0.0.1:8787/v1",
            # The gateway retries and falls back itself: no SDK retries on top.
            max_retries=0,
        )

        completion = client.chat.completions.create(
            model="sim/vision-pro",
            messages=[
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "text",
                            "text": "Weather here?",
                        },
                        {
                            "type": "image_url",
                            "image_url": {
                                "url": "data:image/png;base64,iVBORw0KGgo=",
                            },
                        },
                    ],
                },
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {
                                "name": "get_weather",
                                "arguments": "{\\"city\\":\\"Oslo\\"}",
                            },
                        },
                    ],
                },
                {
                    "role": "tool",
                    "content": "{\\"temperature_c\\":21}",
                    "tool_call_id": "call_1",
                },
            ],
            max_tokens=128,
            seed=7,
            stream=False,
            tools=[
                {
                    "type": "function",
                    "function": {
                        "name": "get_weather",
                        "description": "Current weather for a city.",
                        "parameters": {
                            "type": "object",
                            "properties": {
                                "city": {
                                    "type": "string",
                                },
                            },
                            "required": [
                                "city",
                            ],
                        },
                    },
                },
            ],
        )

        message = completion.choices[0].message
        print(message.content or "")
        for call in message.tool_calls or []:
            print(f"tool call {call.id}: {call.function.name}({call.function.arguments})")
        print(completion.usage)"
      `);
  });

  it('Messages form with @anthropic-ai/sdk', () => {
    expect(generateAnthropicTypeScript({ gatewayBaseUrl: baseUrl, request: toolRequest }))
      .toMatchInlineSnapshot(`
        "import Anthropic from '@anthropic-ai/sdk';

        const client = new Anthropic({
          apiKey: process.env.GATEWAY_API_KEY,
          baseURL: "http://127.0.0.1:8787",
          // The gateway retries and falls back itself: no SDK retries on top.
          maxRetries: 0,
        });

        // The Messages form has no \`seed\`; it is left out.
        const message = await client.messages.create({
          "model": "sim/vision-pro",
          "max_tokens": 128,
          "messages": [
            {
              "role": "user",
              "content": [
                {
                  "type": "text",
                  "text": "Weather here?"
                },
                {
                  "type": "image",
                  "source": {
                    "type": "base64",
                    "media_type": "image/png",
                    "data": "iVBORw0KGgo="
                  }
                }
              ]
            },
            {
              "role": "assistant",
              "content": [
                {
                  "type": "tool_use",
                  "id": "call_1",
                  "name": "get_weather",
                  "input": {
                    "city": "Oslo"
                  }
                }
              ]
            },
            {
              "role": "user",
              "content": [
                {
                  "type": "tool_result",
                  "tool_use_id": "call_1",
                  "content": "{\\"temperature_c\\":21}"
                }
              ]
            }
          ],
          "tools": [
            {
              "name": "get_weather",
              "description": "Current weather for a city.",
              "input_schema": {
                "type": "object",
                "properties": {
                  "city": {
                    "type": "string"
                  }
                },
                "required": [
                  "city"
                ]
              }
            }
          ]
        });

        for (const block of message.content) {
          if (block.type === 'text') console.info(block.text);
        }
        for (const block of message.content) {
          if (block.type === 'tool_use') {
            console.info(\`tool call \${block.id}: \${block.name}(\${JSON.stringify(block.input)})\`);
          }
        }
        console.info(message.usage);"
      `);
  });

  it('Gemini form with @google/genai', () => {
    expect(generateGeminiTypeScript({ gatewayBaseUrl: baseUrl, request: toolRequest }))
      .toMatchInlineSnapshot(`
        "import { GoogleGenAI } from '@google/genai';

        const ai = new GoogleGenAI({
          apiKey: process.env.GATEWAY_API_KEY,
          // The gateway retries and falls back itself: no SDK retries on top.
          httpOptions: {
            baseUrl: "http://127.0.0.1:8787",
            retryOptions: { attempts: 1 },
          },
        });

        const response = await ai.models.generateContent({
          "model": "sim/vision-pro",
          "contents": [
            {
              "role": "user",
              "parts": [
                {
                  "text": "Weather here?"
                },
                {
                  "inlineData": {
                    "mimeType": "image/png",
                    "data": "iVBORw0KGgo="
                  }
                }
              ]
            },
            {
              "role": "model",
              "parts": [
                {
                  "functionCall": {
                    "name": "get_weather",
                    "args": {
                      "city": "Oslo"
                    }
                  }
                }
              ]
            },
            {
              "role": "user",
              "parts": [
                {
                  "functionResponse": {
                    "name": "get_weather",
                    "response": {
                      "temperature_c": 21
                    }
                  }
                }
              ]
            }
          ],
          "config": {
            "maxOutputTokens": 128,
            "seed": 7,
            "tools": [
              {
                "functionDeclarations": [
                  {
                    "name": "get_weather",
                    "description": "Current weather for a city.",
                    "parametersJsonSchema": {
                      "type": "object",
                      "properties": {
                        "city": {
                          "type": "string"
                        }
                      },
                      "required": [
                        "city"
                      ]
                    }
                  }
                ]
              }
            ]
          }
        });

        console.info(response.text ?? '');
        const functionCalls = response.functionCalls ?? [];
        for (const call of functionCalls) {
          console.info(\`tool call: \${call.name}(\${JSON.stringify(call.args)})\`);
        }
        console.info(response.usageMetadata);"
      `);
  });

  it('streams in the native forms when the request streams', () => {
    expect(generateAnthropicTypeScript({ gatewayBaseUrl: baseUrl, request })).toContain(
      'client.messages.stream(',
    );
    expect(generateGeminiTypeScript({ gatewayBaseUrl: baseUrl, request })).toContain(
      'generateContentStream(',
    );
  });
});

describe('no key in any snippet', () => {
  const fakeKey = 'sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c';
  const leakyRequest: ChatRequest['request'] = {
    ...toolRequest,
    messages: [
      { role: 'system', content: `My key is ${fakeKey}, keep it safe.` },
      { role: 'user', content: [{ type: 'text', text: `Authorization: Bearer ${fakeKey}` }] },
      ...toolRequest.messages,
    ],
  };

  it.each(codeTargets.map((target) => [target.label, target] as const))(
    '%s reads the key from the environment only',
    (_label, target) => {
      const code = target.generate({
        gatewayBaseUrl: `https://gw.example.com/v1?key=${fakeKey}`,
        request: leakyRequest,
      });
      expect(code).not.toContain(fakeKey);
      expect(code).not.toContain('4f9a8b7c6d5e');
      expect(code).toContain('GATEWAY_API_KEY');
      expect(code).toContain('sk-…redacted');
    },
  );

  it.each([
    ['openai-typescript', 'maxRetries: 0,'],
    ['openai-python', 'max_retries=0,'],
    ['anthropic-typescript', 'maxRetries: 0,'],
    ['gemini-typescript', 'retryOptions: { attempts: 1 }'],
  ] as const)('%s turns the SDK’s own retries off (the gateway retries)', (id, setting) => {
    const target = codeTargets.find((candidate) => candidate.id === id);
    for (const sent of [request, toolRequest]) {
      expect(target?.generate({ gatewayBaseUrl: baseUrl, request: sent })).toContain(setting);
    }
  });

  it('labels the openai snippet for what it is: JavaScript, saved as .mjs', () => {
    const target = codeTargets.find((candidate) => candidate.id === 'openai-typescript');
    expect(target?.label).toBe('JavaScript (openai)');
    expect(target?.fileName).toMatch(/\.mjs$/);
    expect(codeTargets.some((candidate) => candidate.label.includes('TypeScript'))).toBe(false);
  });

  it('redacts only key-shaped text', () => {
    expect(redactKeys('ask-me-anything-please and sk-abcdefgh1234')).toBe(
      'ask-me-anything-please and sk-…redacted',
    );
  });
});

describe('codeTargetFit', () => {
  it('offers the native forms only for the models they fit', () => {
    expect(codeTargetFit('anthropic-typescript', undefined, 'anthropic/claude-sonnet').fits).toBe(
      true,
    );
    expect(codeTargetFit('anthropic-typescript', undefined, 'openai/gpt-4o').fits).toBe(false);
    expect(codeTargetFit('gemini-typescript', undefined, 'google/gemini-2.5-pro').fits).toBe(true);
    expect(codeTargetFit('gemini-typescript', undefined, 'openai/gpt-4o').reason).toMatch(/google/);
    expect(codeTargetFit('curl', undefined, 'openai/gpt-4o').fits).toBe(true);
  });
});

describe('snippets with tools, as saved and run', () => {
  const streamedTools: ChatRequest['request'] = {
    ...toolRequest,
    messages: [{ role: 'user', content: 'Weather in Oslo?' }],
    stream: true,
  };

  it('print the tool calls the model makes, streamed or not', () => {
    for (const request of [streamedTools, { ...streamedTools, stream: false }]) {
      expect(generateOpenAiTypeScript({ gatewayBaseUrl: baseUrl, request })).toContain(
        'console.info(`tool call ${toolCall.id}',
      );
      expect(generateOpenAiPython({ gatewayBaseUrl: baseUrl, request })).toContain(
        'print(f"tool call',
      );
      expect(generateAnthropicTypeScript({ gatewayBaseUrl: baseUrl, request })).toContain(
        "block.type === 'tool_use'",
      );
      expect(generateGeminiTypeScript({ gatewayBaseUrl: baseUrl, request })).toContain(
        'console.info(`tool call: ${call.name}',
      );
    }
    expect(generateOpenAiTypeScript({ gatewayBaseUrl: baseUrl, request: streamedTools })).toContain(
      'delta?.tool_calls',
    );
  });

  it('end the streamed text with a newline before the usage', () => {
    const code = generateAnthropicTypeScript({ gatewayBaseUrl: baseUrl, request });
    const newline = code.indexOf("process.stdout.write('\\n');");
    expect(newline).toBeGreaterThan(code.indexOf('stream.finalMessage()'));
    expect(newline).toBeLessThan(code.indexOf('console.info(message.usage)'));
  });

  it('name the JavaScript snippets .mjs, which Node 20 runs as written', () => {
    for (const target of codeTargets) {
      if (target.language === 'typescript') expect(target.fileName).toMatch(/\.mjs$/);
      const code = target.generate({ gatewayBaseUrl: baseUrl, request: streamedTools });
      // Plain JavaScript: no type annotations a .mjs file could not run.
      if (target.fileName.endsWith('.mjs'))
        expect(code).not.toMatch(/\bas const\b|: string\b|<[A-Z]\w*>/);
    }
  });
});

describe('tool_choice and response_format in the native forms', () => {
  /** The request body a snippet sends: the JSON object passed to its create call. */
  function sentBody(code: string): Record<string, unknown> {
    const match =
      /(?:create|stream|generateContent|generateContentStream)\((\{\n[\s\S]*?\n\})\);/.exec(code);
    if (!match?.[1]) throw new Error(`No request body in:\n${code}`);
    return JSON.parse(match[1]) as Record<string, unknown>;
  }
  const schema = { type: 'object', properties: { city: { type: 'string' } } };
  const withChoices = (
    toolChoice: unknown,
    responseFormat: ChatRequest['request']['response_format'],
  ): ChatRequest['request'] => ({
    ...toolRequest,
    tool_choice: toolChoice,
    response_format: responseFormat,
  });

  it('carries a named tool and a JSON schema into the Messages form', () => {
    const body = sentBody(
      generateAnthropicTypeScript({
        gatewayBaseUrl: baseUrl,
        request: withChoices(
          { type: 'function', function: { name: 'get_weather' } },
          { type: 'json_schema', json_schema: { name: 'weather', schema } },
        ),
      }),
    );
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'get_weather' });
    expect(body.output_config).toEqual({ format: { type: 'json_schema', schema } });
  });

  it('carries a named tool and a JSON schema into the Gemini form', () => {
    const body = sentBody(
      generateGeminiTypeScript({
        gatewayBaseUrl: baseUrl,
        request: withChoices(
          { type: 'function', function: { name: 'get_weather' } },
          { type: 'json_schema', json_schema: { name: 'weather', schema } },
        ),
      }),
    );
    const config = body.config as Record<string, unknown>;
    expect(config.toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] },
    });
    expect(config.responseMimeType).toBe('application/json');
    expect(config.responseJsonSchema).toEqual(schema);
  });

  it('maps each tool_choice mode to its native name', () => {
    const cases = [
      ['auto', { type: 'auto' }, 'AUTO'],
      ['none', { type: 'none' }, 'NONE'],
      ['required', { type: 'any' }, 'ANY'],
    ] as const;
    for (const [mode, messages, gemini] of cases) {
      const request = withChoices(mode, undefined);
      expect(sentBody(generateAnthropicTypeScript({ gatewayBaseUrl: baseUrl, request }))).toEqual(
        expect.objectContaining({ tool_choice: messages }),
      );
      const config = sentBody(generateGeminiTypeScript({ gatewayBaseUrl: baseUrl, request }))
        .config as Record<string, unknown>;
      expect(config.toolConfig).toEqual({ functionCallingConfig: { mode: gemini } });
    }
  });

  it('asks for any JSON in Gemini, and says the Messages form cannot', () => {
    const request = withChoices(undefined, { type: 'json_object' });
    const gemini = sentBody(generateGeminiTypeScript({ gatewayBaseUrl: baseUrl, request }));
    expect(gemini.config).toEqual(
      expect.objectContaining({ responseMimeType: 'application/json' }),
    );
    expect((gemini.config as Record<string, unknown>).responseJsonSchema).toBeUndefined();
    const messagesCode = generateAnthropicTypeScript({ gatewayBaseUrl: baseUrl, request });
    expect(sentBody(messagesCode).output_config).toBeUndefined();
    expect(messagesCode).toMatch(/no JSON mode without a schema/);
  });

  it('sends neither when the playground left them unset or plain text', () => {
    const request = withChoices(undefined, { type: 'text' });
    const messages = sentBody(generateAnthropicTypeScript({ gatewayBaseUrl: baseUrl, request }));
    expect(messages.tool_choice).toBeUndefined();
    expect(messages.output_config).toBeUndefined();
    const config = sentBody(generateGeminiTypeScript({ gatewayBaseUrl: baseUrl, request }))
      .config as Record<string, unknown>;
    expect(config.toolConfig).toBeUndefined();
    expect(config.responseMimeType).toBeUndefined();
  });
});
