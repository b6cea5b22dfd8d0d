/**
 * The Gemini form's converters against the vendor's documented request, response and stream
 * examples (`vendors/gemini/__fixtures__/gemini-*`): the REST examples' snake_case and the clients' camelCase
 * both become the right canonical request, and what goes out has the vendor's shape.
 */
import type {
  CanonicalResponse,
  FinishReason,
  PipelineEvent,
  PricedFinish,
} from '../../canonical/model';
import { GatewayError } from '../../errors';
import { parseBody } from '../validation';
import { parseServerSentEvents, RecordingResponse } from '../../../testing/recording-response';
import { geminiErrorBody } from './error-shape';
import { toGeminiFinishReason } from './canonical-to-finish-reason';
import { toCanonicalRequest } from './request-to-canonical';
import { generateContentRequestSchema } from './request-schema';
import { toGenerateContentResponse } from './canonical-to-response';
import { writeGeminiStream } from './canonical-to-stream';
import { vendorFixtureText } from '../../vendors/fixtures';

const fixture = (name: string) => vendorFixtureText('gemini', name);
const json = (name: string) => JSON.parse(fixture(name)) as Record<string, unknown>;
const traceId = '0123456789abcdef-LCL';
const convert = (body: unknown, stream = false) =>
  toCanonicalRequest(parseBody(generateContentRequestSchema, body), 'sim/chat-standard', stream);

const priced = (finishReason: FinishReason, completionTokens = 7): PricedFinish => ({
  type: 'finish',
  finishReason,
  stopSequence: null,
  usage: { promptTokens: 8, completionTokens },
  costUsd: 0.000042,
});

async function* replay(events: PipelineEvent[]): AsyncGenerator<PipelineEvent> {
  yield* events;
}

describe('Gemini request → canonical request', () => {
  it('converts the documented chat request with a system instruction and generation config', () => {
    expect(convert(json('gemini-text-request.json'))).toEqual({
      model: 'sim/chat-standard',
      system: 'You are a cat. Your name is Neko.',
      messages: [
        { role: 'user', parts: [{ type: 'text', text: 'Hello there' }] },
        {
          role: 'assistant',
          parts: [{ type: 'text', text: 'Great to meet you. What would you like to know?' }],
        },
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'I have two dogs in my house. How many paws are in my house?' },
          ],
        },
      ],
      maxTokens: 800,
      temperature: 1,
      topP: 0.8,
      stop: ['Title'],
      seed: 42,
      tools: [],
      toolChoice: 'auto',
      stream: false,
    });
  });

  it('converts function declarations, calls and responses, keeping the caller’s own field names', () => {
    const canonical = convert(json('gemini-function-calling-request.json'));
    expect(canonical.toolChoice).toEqual({ name: 'set_light_values' });
    expect(canonical.tools).toEqual([
      {
        name: 'set_light_values',
        description: 'Sets the brightness and color temperature of a light.',
        parameters: {
          type: 'object',
          properties: {
            brightness: {
              type: 'integer',
              description: 'Light level from 0 to 100. Zero is off and 100 is full brightness',
            },
            // The property is the caller's `color_temp`, not renamed to camelCase.
            color_temp: {
              type: 'string',
              enum: ['daylight', 'cool', 'warm'],
              description:
                'Color temperature of the light fixture, which can be `daylight`, `cool` or `warm`.',
            },
          },
          required: ['brightness', 'color_temp'],
        },
      },
    ]);
    const [, call, result] = canonical.messages;
    expect(call).toEqual({
      role: 'assistant',
      parts: [
        {
          type: 'tool_call',
          id: 'call_1_0',
          name: 'set_light_values',
          arguments: JSON.stringify({ brightness: 25, color_temp: 'warm' }),
        },
      ],
    });
    expect(result).toEqual({
      role: 'tool',
      parts: [
        {
          type: 'tool_result',
          toolCallId: 'call_1_0',
          name: 'set_light_values',
          content: JSON.stringify({ brightness: 25, colorTemperature: 'warm' }),
        },
      ],
    });
  });

  it('pairs results of parallel calls to one function with their calls in order, not all with the last', () => {
    const call = (location: string) => ({
      functionCall: { name: 'get_weather', args: { location } },
    });
    const result = (temp: number) => ({
      functionResponse: { name: 'get_weather', response: { temp } },
    });
    const canonical = convert({
      contents: [
        { role: 'user', parts: [{ text: 'Paris and Rome?' }] },
        { role: 'model', parts: [call('Paris'), call('Rome')] },
        { role: 'user', parts: [result(18), result(24)] },
        // A later turn calls the same function again: its result is its own call's.
        { role: 'model', parts: [call('Oslo')] },
        { role: 'user', parts: [result(3)] },
      ],
    });
    const resultIds = canonical.messages
      .flatMap((message) => message.parts)
      .flatMap((part) => (part.type === 'tool_result' ? [part.toolCallId] : []));
    expect(resultIds).toEqual(['call_1_0', 'call_1_1', 'call_3_0']);
  });

  it('pairs a result with the call its id names, and one whose id names no call by name', () => {
    const call = (id: string, location: string) => ({
      functionCall: { id, name: 'get_weather', args: { location } },
    });
    const result = (id: string | undefined, temp: number) => ({
      functionResponse: { ...(id && { id }), name: 'get_weather', response: { temp } },
    });
    const canonical = convert({
      contents: [
        { role: 'user', parts: [{ text: 'Paris and Rome?' }] },
        { role: 'model', parts: [call('toolu_paris', 'Paris'), call('toolu_rome', 'Rome')] },
        // Answered out of order, by id.
        { role: 'user', parts: [result('toolu_rome', 24), result('toolu_paris', 18)] },
        { role: 'model', parts: [call('toolu_oslo', 'Oslo'), call('toolu_bergen', 'Bergen')] },
        // A client's own id, and none: matched by name, in order.
        { role: 'user', parts: [result('get_weather-1764662400000-1', 3), result(undefined, 7)] },
      ],
    });
    const parts = canonical.messages.flatMap((message) => message.parts);
    expect(parts.flatMap((part) => (part.type === 'tool_call' ? [part.id] : []))).toEqual([
      'toolu_paris',
      'toolu_rome',
      'toolu_oslo',
      'toolu_bergen',
    ]);
    expect(
      parts.flatMap((part) =>
        part.type === 'tool_result' ? [[part.toolCallId, part.content]] : [],
      ),
    ).toEqual([
      ['toolu_rome', '{"temp":24}'],
      ['toolu_paris', '{"temp":18}'],
      ['toolu_oslo', '{"temp":3}'],
      ['toolu_bergen', '{"temp":7}'],
    ]);
  });

  it('reads inline image data in the REST (snake_case) spelling, and a role-less content as the user’s', () => {
    const [message] = convert(json('gemini-image-request.json')).messages;
    expect(message!.role).toBe('user');
    expect(message!.parts[0]).toMatchObject({ type: 'image', mediaType: 'image/jpeg' });
    expect(message!.parts[1]).toEqual({ type: 'text', text: 'Caption this image.' });
  });

  it.each([
    [{}, 'contents'],
    [{ contents: [{ role: 'assistant', parts: [{ text: 'hi' }] }] }, 'contents.0.role'],
    [
      { contents: [{ parts: [{ text: 'hi' }] }], generationConfig: { maxOutputTokens: -1 } },
      'generationConfig.maxOutputTokens',
    ],
    [
      { contents: [{ parts: [{ text: 'hi' }] }], generationConfig: { candidateCount: 2 } },
      'generationConfig.candidateCount',
    ],
  ])('refuses bad input with a 400 naming the field (%#)', (body, field) => {
    let thrown: unknown;
    try {
      convert(body);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GatewayError);
    expect((thrown as GatewayError).status).toBe(400);
    expect((thrown as GatewayError).message).toContain(`'${field}'`);
  });
});

describe('canonical response → Gemini response', () => {
  it.each([
    'gemini-text-response-with-safety-ratings.json',
    'gemini-function-call-single-response.json',
  ])('has the shape of %s', (name) => {
    type Recorded = {
      candidates: Array<{
        content: { parts: Array<Record<string, unknown>> };
        finishReason: string;
      }>;
      usageMetadata: object;
    };
    const recorded = json(name) as Recorded;
    const parts = recorded.candidates[0]!.content.parts;
    const text = parts.map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
    const toolCalls = parts
      .filter((part) => part.functionCall)
      .map((part, index) => {
        const call = part.functionCall as { name: string; args: object };
        return { id: `call_${index}`, name: call.name, arguments: JSON.stringify(call.args) };
      });
    const canonical: CanonicalResponse = {
      text,
      toolCalls,
      finish: priced(toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    };

    const converted = toGenerateContentResponse(canonical, 'sim/chat-standard', traceId);
    expect(Object.keys(converted).sort()).toEqual(Object.keys(recorded).sort());
    expect(Object.keys(converted.usageMetadata).sort()).toEqual(
      Object.keys(recorded.usageMetadata).sort(),
    );
    // The vendor's own answer here has no call ids; the gateway's carries each call's.
    let calls = 0;
    expect(converted.candidates[0]!.content).toEqual({
      ...recorded.candidates[0]!.content,
      parts: parts.map((part) =>
        part.functionCall
          ? { ...part, functionCall: { ...part.functionCall, id: `call_${calls++}` } }
          : part,
      ),
    });
    expect(converted.candidates[0]!.finishReason).toBe(recorded.candidates[0]!.finishReason);
    expect(converted).toMatchObject({
      modelVersion: 'sim/chat-standard',
      responseId: '0123456789abcdef',
      usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 7, totalTokenCount: 15 },
    });
  });

  it('shows a refusal as text, as the stream does: the form has no field of its own for it', async () => {
    const plain = toGenerateContentResponse(
      { text: '', toolCalls: [], finish: priced('stop'), refusal: 'I cannot do that.' },
      'sim/chat-standard',
      traceId,
    );
    expect(plain.candidates[0]!.content.parts).toEqual([{ text: 'I cannot do that.' }]);
    const response = new RecordingResponse();
    await writeGeminiStream(
      response.asServerResponse(),
      replay([
        { type: 'text-delta', text: 'I cannot do that.', channel: 'refusal' },
        priced('stop'),
      ]),
      { model: 'sim/chat-standard', traceId, framing: 'sse' },
    );
    expect(parseServerSentEvents(response.body)[0]!.data).toContain('"text":"I cannot do that."');
  });

  it('maps finish reasons to documented values', () => {
    expect(toGeminiFinishReason('length')).toBe('MAX_TOKENS');
    expect(toGeminiFinishReason('tool_calls')).toBe('STOP');
    expect(toGeminiFinishReason('content_filter')).toBe('SAFETY');
  });

  it('writes errors in the documented error shape', () => {
    const recorded = json('gemini-error-invalid-argument.json') as { error: object };
    const body = geminiErrorBody(
      new GatewayError({
        status: 402,
        type: 'key_depleted',
        stage: 'admission',
        message: 'Used up.',
      }),
      traceId,
    );
    // The vendor's fields, and the gateway's stage as every form gives it.
    expect(Object.keys(body.error).sort()).toEqual(
      [...Object.keys(recorded.error), 'stage'].sort(),
    );
    expect(body.error).toMatchObject({
      code: 402,
      status: 'FAILED_PRECONDITION',
      message: 'Used up.',
      stage: 'admission',
    });
    expect(body.error.details).toEqual([
      { '@type': 'type.googleapis.com/google.rpc.RequestInfo', requestId: traceId },
    ]);
  });

  it('says when a retry may succeed, in the gateway’s field and the vendor’s RetryInfo', () => {
    const body = geminiErrorBody(
      new GatewayError({
        status: 503,
        type: 'provider_error',
        stage: 'provider',
        message: 'Overloaded.',
        retryAfterSeconds: 7,
      }),
      traceId,
    );
    expect(body.error).toEqual({
      code: 503,
      message: 'Overloaded.',
      status: 'UNAVAILABLE',
      details: [
        { '@type': 'type.googleapis.com/google.rpc.RequestInfo', requestId: traceId },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' },
      ],
      stage: 'provider',
      retry_after: 7,
    });
  });
});

describe('canonical events → Gemini stream', () => {
  const recorded = parseServerSentEvents(fixture('gemini-text-stream.chunks.txt')).map((event) =>
    JSON.parse(event.data),
  );
  const texts = recorded.map((chunk) => chunk.candidates[0].content.parts[0].text as string);

  it('writes one data event per delta and ends with finishReason and usage, like the recorded stream', async () => {
    const response = new RecordingResponse();
    await writeGeminiStream(
      response.asServerResponse(),
      replay([
        ...texts.map((text): PipelineEvent => ({ type: 'text-delta', text })),
        priced('stop', 17),
      ]),
      { model: 'sim/chat-standard', traceId, framing: 'sse' },
    );
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    const written = parseServerSentEvents(response.body);
    expect(written.every((event) => event.event === null)).toBe(true);
    const chunks = written.map((event) => JSON.parse(event.data));
    expect(chunks.map((chunk) => chunk.candidates[0].content.parts[0].text).join('')).toBe(
      texts.join(''),
    );
    for (const [index, chunk] of chunks.entries()) {
      // Every chunk has the recorded chunk's candidate and top-level fields.
      expect(Object.keys(chunk)).toEqual(
        expect.arrayContaining(['candidates', 'modelVersion', 'responseId']),
      );
      expect(Object.keys(chunk.candidates[0])).toEqual(
        expect.arrayContaining(
          Object.keys(recorded[Math.min(index, recorded.length - 2)].candidates[0]),
        ),
      );
    }
    const last = chunks.at(-1);
    expect(last.candidates[0].finishReason).toBe(recorded.at(-1).candidates[0].finishReason);
    expect(Object.keys(last.usageMetadata).sort()).toEqual(
      Object.keys(recorded.at(-1).usageMetadata).sort(),
    );
    expect(last.usageMetadata).toEqual({
      promptTokenCount: 8,
      candidatesTokenCount: 17,
      totalTokenCount: 25,
    });
    expect(
      chunks.slice(0, -1).every((chunk) => chunk.candidates[0].finishReason === undefined),
    ).toBe(true);
  });

  it('streams one JSON array when the client does not ask for SSE', async () => {
    const response = new RecordingResponse();
    await writeGeminiStream(
      response.asServerResponse(),
      replay([
        { type: 'text-delta', text: 'Hi' },
        { type: 'tool-call', id: 'c', name: 'f', arguments: '{"a":1}' },
        priced('tool_calls', 2),
      ]),
      { model: 'sim/chat-standard', traceId, framing: 'json_array' },
    );
    const chunks = JSON.parse(response.body) as Array<{
      candidates: Array<{ content: { parts: object[] } }>;
    }>;
    expect(chunks).toHaveLength(3);
    expect(chunks[1]!.candidates[0]!.content.parts).toEqual([
      { functionCall: { name: 'f', args: { a: 1 }, id: 'c' } },
    ]);
  });

  it('ends with an error chunk in the vendor shape when the provider fails mid-stream', async () => {
    async function* failing(): AsyncGenerator<PipelineEvent> {
      yield { type: 'text-delta', text: 'partial' };
      throw new GatewayError({
        status: 502,
        type: 'provider_error',
        stage: 'provider',
        message: 'The provider failed while answering. Retry later.',
      });
    }
    const response = new RecordingResponse();
    await writeGeminiStream(response.asServerResponse(), failing(), {
      model: 'sim/chat-standard',
      traceId,
      framing: 'sse',
    });
    const last = JSON.parse(parseServerSentEvents(response.body).at(-1)!.data);
    expect(last.error).toMatchObject({ code: 502, status: 'UNAVAILABLE' });
  });
});
