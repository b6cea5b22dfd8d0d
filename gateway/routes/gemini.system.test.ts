/**
 * The Gemini form end to end: the vendor's own client (`@google/genai`) and raw HTTP against a
 * real gateway process, with keys minted by the command line.
 */
import { ApiError, GoogleGenAI, Type } from '@google/genai';
import { startGatewayProcess, type GatewayProcess } from '../../testing/gateway-process';
import { parseModelTarget } from './gemini';

let gateway: GatewayProcess;
let key: string;

beforeAll(async () => {
  gateway = await startGatewayProcess();
  key = (await gateway.createKey(['--kind', 'account'])).key;
});
afterAll(async () => {
  await gateway?.stop();
});

const client = (apiKey = key) =>
  new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gateway.baseUrl } });

const smallRequest = {
  contents: [{ role: 'user', parts: [{ text: 'Tell me about gateways.' }] }],
  generationConfig: { maxOutputTokens: 8 },
};

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${gateway.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('with the vendor client', () => {
  it('generateContent answers with candidates, finishReason, usageMetadata, modelVersion and responseId', async () => {
    const response = await client().models.generateContent({
      model: 'sim/chat-standard',
      contents: 'Tell me about gateways.',
      config: { systemInstruction: 'Be brief.', maxOutputTokens: 64, temperature: 0 },
    });
    expect(response.text?.length).toBeGreaterThan(0);
    const candidate = response.candidates![0]!;
    expect(candidate.content?.role).toBe('model');
    expect(['STOP', 'MAX_TOKENS']).toContain(candidate.finishReason);
    const usage = response.usageMetadata!;
    expect(usage.promptTokenCount).toBeGreaterThan(0);
    expect(usage.totalTokenCount).toBe(usage.promptTokenCount! + usage.candidatesTokenCount!);
    expect(response.modelVersion).toBe('sim/chat-standard');
    const cfRay = response.sdkHttpResponse?.headers?.['cf-ray'];
    expect(response.responseId).toBe(cfRay?.slice(0, 16));
  });

  it('generateContent calls a declared function', async () => {
    const response = await client().models.generateContent({
      model: 'sim/chat-standard',
      contents: 'Dim the lights.',
      config: {
        tools: [
          {
            functionDeclarations: [
              {
                name: 'set_light_values',
                parameters: {
                  type: Type.OBJECT,
                  properties: {
                    brightness: { type: Type.INTEGER },
                    color_temp: { type: Type.STRING, enum: ['warm', 'cool'] },
                  },
                },
              },
            ],
          },
        ],
      },
    });
    // With the call's id, which the client sends back as functionResponse.id.
    expect(response.functionCalls).toEqual([
      {
        id: expect.stringMatching(/^call_[0-9a-f]{12}$/),
        name: 'set_light_values',
        args: { brightness: 42, color_temp: 'warm' },
      },
    ]);
  });

  it('generateContentStream yields chunks whose texts join to the answer, the last with finishReason and usage', async () => {
    const request = {
      model: 'sim/chat-standard',
      contents: 'Tell me about gateways.',
      config: { maxOutputTokens: 64, temperature: 0 },
    };
    const chunks = [];
    for await (const chunk of await client().models.generateContentStream(request))
      chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(2);
    const streamed = chunks.map((chunk) => chunk.text ?? '').join('');
    const whole = await client().models.generateContent(request);
    // Temperature 0 is deterministic per conversation: streamed and whole answers are the same.
    expect(streamed).toBe(whole.text);
    const last = chunks.at(-1)!;
    expect(last.candidates![0]!.finishReason).toBeDefined();
    expect(last.usageMetadata?.candidatesTokenCount).toBe(
      whole.usageMetadata?.candidatesTokenCount,
    );
  });

  it('countTokens counts what generateContent then charges as the prompt', async () => {
    const contents = 'How many tokens is this sentence?';
    const counted = await client().models.countTokens({ model: 'sim/chat-standard', contents });
    const generated = await client().models.generateContent({
      model: 'sim/chat-standard',
      contents,
      config: { maxOutputTokens: 4 },
    });
    expect(counted.totalTokens).toBeGreaterThan(0);
    expect(counted.totalTokens).toBe(generated.usageMetadata?.promptTokenCount);
  });

  it('raises ApiError with the status: unknown model 404, unknown key 401, empty key 402', async () => {
    const unknownModel = client().models.generateContent({
      model: 'sim/no-such-model',
      contents: 'hi',
    });
    await expect(unknownModel).rejects.toBeInstanceOf(ApiError);
    await expect(unknownModel).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining('NOT_FOUND'),
    });

    const unknownKey = client(`sk-${'0'.repeat(40)}`).models.generateContent({
      model: 'sim/echo-mini',
      contents: 'hi',
    });
    await expect(unknownKey).rejects.toMatchObject({
      status: 401,
      message: expect.stringContaining('UNAUTHENTICATED'),
    });

    const empty = await gateway.createKey(['--kind', 'account', '--limit-usd', '0']);
    const refused = client(empty.key).models.generateContentStream({
      model: 'sim/echo-mini',
      contents: 'hi',
    });
    await expect(refused).rejects.toMatchObject({
      status: 402,
      message: expect.stringContaining('FAILED_PRECONDITION'),
    });
  });

  it('reaches every chat model in the catalog by full id, variants included', async () => {
    const catalog = (await (await fetch(`${gateway.baseUrl}/v1/models`)).json()) as {
      data: Array<{ id: string; architecture: { output_modalities: string[] } }>;
    };
    // Embedding models answer on :embedContent instead (routes/embeddings.integration.test.ts).
    const chatModels = catalog.data.filter(
      (model) => !model.architecture.output_modalities.includes('embeddings'),
    );
    for (const { id } of chatModels) {
      const response = await client().models.generateContent({
        model: id,
        contents: 'hi',
        config: { maxOutputTokens: 4 },
      });
      expect(response.modelVersion).toBe(id);
    }
  });
});

describe('over raw HTTP', () => {
  const path = '/v1beta/models/sim/echo-mini:generateContent';

  it.each([
    ['x-goog-api-key', () => ({ path, headers: { 'x-goog-api-key': key } })],
    ['?key=', () => ({ path: `${path}?key=${encodeURIComponent(key)}`, headers: {} })],
  ])('accepts the key as %s', async (_form, send) => {
    const { path: target, headers } = send();
    const response = await post(target, smallRequest, headers);
    expect(response.status).toBe(200);
    expect((await response.json()).candidates).toHaveLength(1);
  });

  it('answers a Bearer token with 401 UNAUTHENTICATED, even a valid key', async () => {
    const response = await post(path, smallRequest, { authorization: `Bearer ${key}` });
    expect(response.status).toBe(401);
    const body = await response.json();
    expect(body.error).toMatchObject({
      code: 401,
      status: 'UNAUTHENTICATED',
      message: expect.stringContaining('Bearer'),
    });
  });

  it('lets ?key= win over the header, both ways', async () => {
    const wrong = `sk-${'1'.repeat(40)}`;
    expect(
      (
        await post(`${path}?key=${encodeURIComponent(key)}`, smallRequest, {
          'x-goog-api-key': wrong,
        })
      ).status,
    ).toBe(200);
    const loses = await post(`${path}?key=${encodeURIComponent(wrong)}`, smallRequest, {
      'x-goog-api-key': key,
    });
    expect(loses.status).toBe(401);
    expect((await loses.json()).error.status).toBe('UNAUTHENTICATED');
  });

  it.each([
    ['a bare model name', '/v1beta/models/echo-mini:generateContent', 'sim/echo-mini'],
    [
      'a variant with its colon',
      '/v1beta/models/sim/chat-standard:free:generateContent',
      'sim/chat-standard:free',
    ],
    ['the /v1 prefix', '/v1/models/sim/echo-mini:generateContent', 'sim/echo-mini'],
    ['a percent-encoded slash', '/v1beta/models/sim%2Fecho-mini:generateContent', 'sim/echo-mini'],
  ])('resolves %s', async (_case, target, model) => {
    const response = await post(target, smallRequest, { 'x-goog-api-key': key });
    expect(response.status).toBe(200);
    expect((await response.json()).modelVersion).toBe(model);
  });

  it('refuses an unknown model name with a 404 naming it', async () => {
    const response = await post('/v1beta/models/no-such:generateContent', smallRequest, {
      'x-goog-api-key': key,
    });
    expect(response.status).toBe(404);
    expect((await response.json()).error).toMatchObject({
      status: 'NOT_FOUND',
      message: expect.stringContaining("'no-such'"),
    });
  });

  it('refuses bad input with a 400 INVALID_ARGUMENT naming the field', async () => {
    const response = await post(
      path,
      { contents: [{ role: 'user', parts: 'hi' }] },
      { 'x-goog-api-key': key },
    );
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error).toMatchObject({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message: expect.stringContaining("'contents.0.parts'"),
    });
  });

  it('answers unknown paths under /v1beta with 404 in the Gemini shape, with cf-ray', async () => {
    for (const [method, target] of [
      ['GET', '/v1beta/models'],
      ['POST', '/v1beta/models/sim/echo-mini:predict'],
      ['POST', '/v1beta/files'],
    ] as const) {
      const response = await fetch(`${gateway.baseUrl}${target}`, {
        method,
        headers: { 'x-goog-api-key': key },
      });
      expect(response.status).toBe(404);
      expect(response.headers.get('cf-ray')).toMatch(/^[0-9a-f]{16}-/);
      expect((await response.json()).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    }
  });

  it('streams SSE with ?alt=sse and one JSON array without it', async () => {
    const streamPath = '/v1beta/models/sim/echo-mini:streamGenerateContent';
    const sse = await post(`${streamPath}?alt=sse`, smallRequest, { 'x-goog-api-key': key });
    expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await sse.text()).split('\n\n').filter(Boolean);
    expect(events.every((event) => event.startsWith('data: {'))).toBe(true);

    const array = await post(streamPath, smallRequest, { 'x-goog-api-key': key });
    expect(array.headers.get('content-type')).toMatch(/^application\/json/);
    const chunks = (await array.json()) as Array<{ candidates: unknown[] }>;
    expect(chunks.length).toBe(events.length);
  });
});

describe('the path parser', () => {
  it('splits at the last colon and drops a repeated models/ prefix', () => {
    expect(parseModelTarget('sim/chat-standard:batch:countTokens')).toEqual({
      modelName: 'sim/chat-standard:batch',
      method: 'countTokens',
    });
    expect(parseModelTarget('models/sim/echo-mini:generateContent')).toEqual({
      modelName: 'sim/echo-mini',
      method: 'generateContent',
    });
    expect(() => parseModelTarget('sim/echo-mini')).toThrow(/No method/);
  });
});
