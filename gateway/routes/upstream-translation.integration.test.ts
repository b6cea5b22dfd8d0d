/**
 * Every direction of translation, over real HTTP: each public form (chat completions, Messages,
 * Gemini) to each upstream provider kind (openai-compatible, anthropic, gemini), plain and
 * streamed, with the kinds' recorded answers replayed by fake upstreams on loopback. Both sides
 * are asserted: what the client gets (text, tool calls, finish, usage, cost) and what the
 * upstream was sent (path, its key the vendor's way, the model, the conversation, the bounds).
 */
import { generationRecordSchema, type GenerationRecord } from '../../contract/gateway';
import type { PublicFormName } from '../canonical/model';
import type { UpstreamKind } from '../providers/upstream/provider-config';
import { FOREIGN_THOUGHT_SIGNATURE } from '../providers/gemini/canonical-to-request';
import type { FakeReply, FakeUpstream } from '../../testing/upstreams/fake-upstream';
import {
  KIND_PROVIDERS,
  RECORDED_ANSWERS,
  startKindUpstreams,
  type KindUpstreams,
} from '../../testing/upstreams/kind-upstreams';
import {
  callForm,
  formErrorMessage,
  parseSse,
  PUBLIC_FORMS,
  readFormAnswer,
  streamErrorOf,
} from '../../testing/upstreams/public-forms';
import {
  GIF_BASE64,
  PNG_BASE64,
  providersFileFor,
  startImageServer,
  UPSTREAM_KINDS,
  type ImageServer,
} from '../../testing/upstreams/upstream-kit';
import {
  getWithKey,
  startTestGateway,
  toNanos,
  type TestGateway,
} from '../../testing/gateway-support';

let gateway: TestGateway;
let key: string;
let upstreams: KindUpstreams;
let upstreamKeys: Record<string, string>;
let fakes: KindUpstreams['fakes'];
let images: ImageServer;

beforeAll(async () => {
  images = await startImageServer();
  upstreams = await startKindUpstreams();
  ({ upstreamKeys, fakes } = upstreams);
  gateway = await startTestGateway({ providers: upstreams.providers });
  key = (await gateway.createKey({ kind: 'account', limitUsd: 100 })).key;
});
afterAll(async () => {
  await gateway?.stop();
  await upstreams?.close();
  await images?.close();
});

/** Each form's word for a natural end and for an end with tool calls. */
const FINISH: Record<PublicFormName, { text: string; tool: string }> = {
  chat_completions: { text: 'stop', tool: 'tool_calls' },
  messages: { text: 'end_turn', tool: 'tool_use' },
  gemini: { text: 'STOP', tool: 'STOP' },
  responses: { text: 'completed', tool: 'completed' },
};

const TOOL_DESCRIPTION = 'Get the current weather in a given location';
const TOOL_SCHEMA = {
  type: 'object',
  properties: { location: { type: 'string', description: 'The city' } },
  required: ['location'],
};

const toolsIn: Record<PublicFormName, unknown> = {
  chat_completions: [
    {
      type: 'function',
      function: { name: 'get_weather', description: TOOL_DESCRIPTION, parameters: TOOL_SCHEMA },
    },
  ],
  messages: [{ name: 'get_weather', description: TOOL_DESCRIPTION, input_schema: TOOL_SCHEMA }],
  gemini: [
    {
      functionDeclarations: [
        { name: 'get_weather', description: TOOL_DESCRIPTION, parametersJsonSchema: TOOL_SCHEMA },
      ],
    },
  ],
  responses: [
    {
      type: 'function',
      name: 'get_weather',
      description: TOOL_DESCRIPTION,
      parameters: TOOL_SCHEMA,
    },
  ],
};

/** A one-line question with room for every recorded answer, with or without tools. */
function simpleBody(form: PublicFormName, withTools: boolean): Record<string, unknown> {
  const tools = withTools ? { tools: toolsIn[form] } : {};
  switch (form) {
    case 'chat_completions':
      return { messages: [{ role: 'user', content: 'Hello there' }], max_tokens: 1_000, ...tools };
    case 'messages':
      return { max_tokens: 1_000, messages: [{ role: 'user', content: 'Hello there' }], ...tools };
    case 'gemini':
      return {
        contents: [{ role: 'user', parts: [{ text: 'Hello there' }] }],
        generationConfig: { maxOutputTokens: 1_000 },
        ...tools,
      };
    case 'responses':
      return { input: 'Hello there', max_output_tokens: 1_000, ...tools };
  }
}

async function generationRecord(cfRay: string): Promise<GenerationRecord> {
  const response = await getWithKey(`${gateway.url}/v1/generation?id=${cfRay}`, key);
  expect(response.status).toBe(200);
  return generationRecordSchema.parse(await response.json());
}

/** The upstream's request must carry its own key the vendor's way, and nothing of the gateway key. */
function expectUpstreamAuth(kind: UpstreamKind, sent: FakeUpstream['requests'][number]) {
  const upstreamKey = upstreamKeys[KIND_PROVIDERS[kind].provider]!;
  switch (kind) {
    case 'openai-compatible':
      expect(sent.headers.authorization).toBe(`Bearer ${upstreamKey}`);
      break;
    case 'anthropic':
      expect(sent.headers['x-api-key']).toBe(upstreamKey);
      expect(sent.headers['anthropic-version']).toBe('2023-06-01');
      expect(sent.headers.authorization).toBeUndefined();
      break;
    case 'gemini':
      expect(sent.headers['x-goog-api-key']).toBe(upstreamKey);
      expect(sent.headers.authorization).toBeUndefined();
      expect(sent.path).not.toContain('key=');
      break;
  }
  const everything = `${sent.path} ${JSON.stringify(sent.headers)} ${JSON.stringify(sent.body)}`;
  expect(everything).not.toContain(key);
  expect(everything).not.toContain(key.slice(-24));
}

const upstreamPath = (kind: UpstreamKind, stream: boolean) =>
  ({
    'openai-compatible': '/v1/chat/completions',
    anthropic: '/v1/messages',
    gemini: `/v1beta/models/${KIND_PROVIDERS.gemini.upstreamModel}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
  })[kind];

/** A fresh request to one fake upstream: exactly one arrives, and it is returned. */
async function sendThrough<T>(kind: UpstreamKind, send: () => Promise<T>) {
  const before = fakes[kind].requests.length;
  const result = await send();
  expect(fakes[kind].requests.length).toBe(before + 1);
  return { result, sent: fakes[kind].requests.at(-1)! };
}

describe.each(PUBLIC_FORMS)('the %s form', (form) => {
  describe.each(UPSTREAM_KINDS)('to a %s upstream', (kind) => {
    const { provider, model, upstreamModel, promptNanos, completionNanos } = KIND_PROVIDERS[kind];

    it.each([
      { answer: 'text', mode: 'plain' },
      { answer: 'text', mode: 'stream' },
      { answer: 'tool', mode: 'plain' },
      { answer: 'tool', mode: 'stream' },
    ] as const)(
      'relays a recorded $answer answer ($mode): content, finish, usage and cost',
      async ({ answer, mode }) => {
        const recorded = RECORDED_ANSWERS[kind][answer][mode];
        const stream = mode === 'stream';
        fakes[kind].reply(recorded.reply());
        const { result: response, sent } = await sendThrough(kind, () =>
          callForm(form, gateway.url, key, model, simpleBody(form, answer === 'tool'), { stream }),
        );
        expect(response.headers.get('x-gateway-provider')).toBe(provider);
        const cfRay = response.headers.get('cf-ray')!;
        const got = await readFormAnswer(form, response, stream);

        expect(got.text).toBe(recorded.text);
        // Every form carries the upstream's call ids (the Gemini form as `functionCall.id`).
        expect(got.toolCalls).toEqual(recorded.toolCalls);
        expect(got.finish).toBe(FINISH[form][answer]);
        expect(got.streamError).toBeNull();
        expect(got.cleanEnd).toBe(true);
        // The usage shown is the upstream's, and the cost is that usage at this provider's prices.
        expect(got.usage).toEqual(recorded.usage);
        const costNanos =
          recorded.usage.prompt * promptNanos + recorded.usage.completion * completionNanos;
        if (form !== 'gemini') expect(toNanos(got.costUsd!)).toBe(costNanos);
        const record = await generationRecord(cfRay);
        expect(record).toMatchObject({
          model,
          provider,
          upstream_model: upstreamModel,
          form,
          streamed: stream,
          prompt_tokens: recorded.usage.prompt,
          completion_tokens: recorded.usage.completion,
          outcome: 'completed',
          usage_estimated: false,
          charge_capped: false,
          attempts: [{ provider, status: 200, latency_ms: expect.any(Number) }],
        });
        expect(toNanos(record.cost_usd)).toBe(costNanos);

        // What the upstream was sent: its path, its key, its model name, the bound and the question.
        expect(sent.method).toBe('POST');
        expect(sent.path).toBe(upstreamPath(kind, stream));
        expectUpstreamAuth(kind, sent);
        const body = sent.body as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
        switch (kind) {
          case 'openai-compatible':
            expect(body).toMatchObject({ model: upstreamModel, max_tokens: 1_000, stream });
            expect(body.messages.at(-1)).toEqual({ role: 'user', content: 'Hello there' });
            if (stream) expect(body.stream_options).toEqual({ include_usage: true });
            else expect(body.stream_options).toBeUndefined();
            if (answer === 'tool') expect(body.tools[0].function.name).toBe('get_weather');
            break;
          case 'anthropic':
            expect(body).toMatchObject({ model: upstreamModel, max_tokens: 1_000, stream });
            expect(JSON.stringify(body.messages.at(-1))).toContain('Hello there');
            if (answer === 'tool')
              expect(body.tools[0]).toMatchObject({
                name: 'get_weather',
                input_schema: TOOL_SCHEMA,
              });
            break;
          case 'gemini':
            // The model and the mode are in the path.
            expect(body.model).toBeUndefined();
            expect(body.stream).toBeUndefined();
            expect(body.generationConfig.maxOutputTokens).toBe(1_000);
            expect(body.contents.at(-1)).toEqual({
              role: 'user',
              parts: [{ text: 'Hello there' }],
            });
            if (answer === 'tool')
              expect(body.tools[0].functionDeclarations[0].name).toBe('get_weather');
            break;
        }
      },
    );
  });
});

// A conversation with everything a translation can lose: a system prompt, images inline and by
// URL, a tool call and its result, an earlier answer, tools, a stop sequence, bounds.
const SYSTEM = 'You are a weather bot.';
const QUESTION = 'What is the weather where this photo was taken?';
const EARLIER_ANSWER = 'It is 18 °C in Paris.';
const FOLLOW_UP = 'Is that warm?';

function richBody(form: PublicFormName): Record<string, unknown> {
  switch (form) {
    case 'chat_completions':
      return {
        messages: [
          { role: 'system', content: SYSTEM },
          {
            role: 'user',
            content: [
              { type: 'text', text: QUESTION },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
              { type: 'image_url', image_url: { url: images.imageUrl } },
            ],
          },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":18}' },
          { role: 'assistant', content: EARLIER_ANSWER },
          { role: 'user', content: FOLLOW_UP },
        ],
        tools: toolsIn.chat_completions,
        tool_choice: 'auto',
        max_tokens: 300,
        temperature: 0.5,
        stop: ['END'],
      };
    case 'messages':
      return {
        system: SYSTEM,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: QUESTION },
              {
                type: 'image',
                source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 },
              },
              { type: 'image', source: { type: 'url', url: images.imageUrl } },
            ],
          },
          {
            role: 'assistant',
            content: [
              {
                type: 'tool_use',
                id: 'toolu_1',
                name: 'get_weather',
                input: { location: 'Paris' },
              },
            ],
          },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '{"temp_c":18}' }],
          },
          { role: 'assistant', content: EARLIER_ANSWER },
          { role: 'user', content: FOLLOW_UP },
        ],
        tools: toolsIn.messages,
        tool_choice: { type: 'auto' },
        max_tokens: 300,
        temperature: 0.5,
        stop_sequences: ['END'],
      };
    case 'gemini':
      return {
        systemInstruction: { parts: [{ text: SYSTEM }] },
        contents: [
          {
            role: 'user',
            parts: [
              { text: QUESTION },
              { inlineData: { mimeType: 'image/png', data: PNG_BASE64 } },
              { fileData: { mimeType: 'image/gif', fileUri: images.imageUrl } },
            ],
          },
          {
            role: 'model',
            parts: [{ functionCall: { name: 'get_weather', args: { location: 'Paris' } } }],
          },
          {
            role: 'user',
            parts: [{ functionResponse: { name: 'get_weather', response: { temp_c: 18 } } }],
          },
          { role: 'model', parts: [{ text: EARLIER_ANSWER }] },
          { role: 'user', parts: [{ text: FOLLOW_UP }] },
        ],
        tools: toolsIn.gemini,
        toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
        generationConfig: { maxOutputTokens: 300, temperature: 0.5, stopSequences: ['END'] },
      };
    case 'responses':
      // The form has no stop sequences; everything else is the same conversation.
      return {
        instructions: SYSTEM,
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: QUESTION },
              { type: 'input_image', image_url: `data:image/png;base64,${PNG_BASE64}` },
              { type: 'input_image', image_url: images.imageUrl },
            ],
          },
          {
            type: 'function_call',
            call_id: 'call_1',
            name: 'get_weather',
            arguments: '{"location":"Paris"}',
          },
          { type: 'function_call_output', call_id: 'call_1', output: '{"temp_c":18}' },
          { role: 'assistant', content: EARLIER_ANSWER },
          { role: 'user', content: FOLLOW_UP },
        ],
        tools: toolsIn.responses,
        tool_choice: 'auto',
        max_output_tokens: 300,
        temperature: 0.5,
      };
  }
}

/** The id the earlier tool call has once canonical: the client's, or the Gemini form's positional one. */
const EARLIER_CALL_ID: Record<PublicFormName, string> = {
  chat_completions: 'call_1',
  messages: 'toolu_1',
  gemini: 'call_1_0',
  responses: 'call_1',
};

/** What a kind is sent for the rich conversation arriving on another form. */
function translatedBody(kind: UpstreamKind, from: PublicFormName): Record<string, unknown> {
  const callId = EARLIER_CALL_ID[from];
  switch (kind) {
    case 'openai-compatible':
      return {
        model: KIND_PROVIDERS[kind].upstreamModel,
        messages: [
          { role: 'system', content: SYSTEM },
          {
            role: 'user',
            content: [
              { type: 'text', text: QUESTION },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
              // This kind fetches URLs itself: the URL goes as it came.
              { type: 'image_url', image_url: { url: images.imageUrl } },
            ],
          },
          {
            role: 'assistant',
            tool_calls: [
              {
                id: callId,
                type: 'function',
                function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
              },
            ],
          },
          { role: 'tool', tool_call_id: callId, content: '{"temp_c":18}' },
          { role: 'assistant', content: EARLIER_ANSWER },
          { role: 'user', content: FOLLOW_UP },
        ],
        max_tokens: 300,
        temperature: 0.5,
        stop: ['END'],
        tools: toolsIn.chat_completions,
        tool_choice: 'auto',
        stream: false,
      };
    case 'anthropic':
      return {
        model: KIND_PROVIDERS[kind].upstreamModel,
        max_tokens: 300,
        system: SYSTEM,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: QUESTION },
              {
                type: 'image',
                source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 },
              },
              { type: 'image', source: { type: 'url', url: images.imageUrl } },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: callId, name: 'get_weather', input: { location: 'Paris' } },
            ],
          },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: callId, content: '{"temp_c":18}' }],
          },
          { role: 'assistant', content: [{ type: 'text', text: EARLIER_ANSWER }] },
          { role: 'user', content: [{ type: 'text', text: FOLLOW_UP }] },
        ],
        temperature: 0.5,
        stop_sequences: ['END'],
        tools: toolsIn.messages,
        tool_choice: { type: 'auto' },
        stream: false,
      };
    case 'gemini':
      return {
        contents: [
          {
            role: 'user',
            parts: [
              { text: QUESTION },
              { inlineData: { mimeType: 'image/png', data: PNG_BASE64 } },
              // Gemini fetches no URL: the gateway fetched the image and sends it inline.
              { inlineData: { mimeType: 'image/gif', data: GIF_BASE64 } },
            ],
          },
          {
            role: 'model',
            parts: [
              {
                functionCall: { name: 'get_weather', args: { location: 'Paris' }, id: callId },
                thoughtSignature: FOREIGN_THOUGHT_SIGNATURE,
              },
            ],
          },
          {
            role: 'user',
            parts: [
              {
                functionResponse: { name: 'get_weather', response: { temp_c: 18 }, id: callId },
              },
            ],
          },
          { role: 'model', parts: [{ text: EARLIER_ANSWER }] },
          { role: 'user', parts: [{ text: FOLLOW_UP }] },
        ],
        systemInstruction: { parts: [{ text: SYSTEM }] },
        generationConfig: { maxOutputTokens: 300, temperature: 0.5, stopSequences: ['END'] },
        tools: toolsIn.gemini,
        toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      };
  }
}

/** What a kind is sent for the rich conversation arriving on its own form: the client's body. */
function sameFormBody(kind: UpstreamKind): Record<string, unknown> {
  switch (kind) {
    case 'openai-compatible':
      return {
        ...richBody('chat_completions'),
        model: KIND_PROVIDERS[kind].upstreamModel,
        stream: false,
      };
    case 'anthropic':
      return { ...richBody('messages'), model: KIND_PROVIDERS[kind].upstreamModel, stream: false };
    case 'gemini': {
      const body = richBody('gemini') as {
        contents: Array<{ parts: Array<Record<string, unknown>> }>;
      };
      // The caller's own `fileData` URI goes through as sent (Gemini fetches Files-API URIs
      // itself); the first call of a model turn that carries no thought signature gets the
      // vendor's skip value, since the gateway's own answers cannot carry one.
      const contents = structuredClone(body.contents);
      contents[1]!.parts[0] = {
        ...contents[1]!.parts[0],
        thoughtSignature: FOREIGN_THOUGHT_SIGNATURE,
      };
      return { ...body, contents };
    }
  }
}

/** The Responses form has no stop sequences: what its translation lacks. */
function withoutStopSequences(body: Record<string, unknown>): void {
  delete body.stop;
  delete body.stop_sequences;
  const config = body.generationConfig as Record<string, unknown> | undefined;
  if (config) delete config.stopSequences;
}

const NATIVE_FORM: Record<UpstreamKind, PublicFormName> = {
  'openai-compatible': 'chat_completions',
  anthropic: 'messages',
  gemini: 'gemini',
};

describe.each(PUBLIC_FORMS)('a whole conversation on the %s form', (form) => {
  it.each(UPSTREAM_KINDS)(
    'reaches the %s upstream with system prompt, history, tools, tool results, images, stop and bounds',
    async (kind) => {
      fakes[kind].reply(RECORDED_ANSWERS[kind].text.plain.reply());
      const fetchesBefore = images.fetches;
      const { result: response, sent } = await sendThrough(kind, () =>
        callForm(form, gateway.url, key, KIND_PROVIDERS[kind].model, richBody(form)),
      );
      expect(response.status, await response.clone().text()).toBe(200);
      expect(sent.path).toBe(upstreamPath(kind, false));
      expectUpstreamAuth(kind, sent);
      const expected = NATIVE_FORM[kind] === form ? sameFormBody(kind) : translatedBody(kind, form);
      if (form === 'responses') withoutStopSequences(expected);
      expect(sent.body).toEqual(expected);
      // Only an upstream that cannot fetch URLs makes the gateway fetch the image, and only for a
      // request of another form (a Gemini-form body passes through as the caller wrote it).
      expect(images.fetches - fetchesBefore).toBe(kind === 'gemini' && form !== 'gemini' ? 1 : 0);
    },
  );
});

describe('tool results on the Gemini form, which carries no call ids', () => {
  // Two calls of one function in one turn, answered in order: each result belongs to its own call.
  const body = {
    contents: [
      { role: 'user', parts: [{ text: 'Weather in Paris and in Rome?' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_weather', args: { location: 'Paris' } } },
          { functionCall: { name: 'get_weather', args: { location: 'Rome' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { temp_c: 18 } } },
          { functionResponse: { name: 'get_weather', response: { temp_c: 24 } } },
        ],
      },
    ],
    tools: toolsIn.gemini,
  };

  it('pairs each of two same-name results with its own call for an openai-compatible upstream', async () => {
    fakes['openai-compatible'].reply(RECORDED_ANSWERS['openai-compatible'].text.plain.reply());
    const { result: response, sent } = await sendThrough('openai-compatible', () =>
      callForm('gemini', gateway.url, key, KIND_PROVIDERS['openai-compatible'].model, body),
    );
    expect(response.status, await response.clone().text()).toBe(200);
    const messages = sent.body.messages as Array<Record<string, unknown>>;
    expect(messages.slice(1)).toEqual([
      {
        role: 'assistant',
        tool_calls: [
          {
            id: 'call_1_0',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
          },
          {
            id: 'call_1_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"location":"Rome"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1_0', content: '{"temp_c":18}' },
      { role: 'tool', tool_call_id: 'call_1_1', content: '{"temp_c":24}' },
    ]);
  });

  it('pairs each of two same-name results with its own call for an anthropic upstream', async () => {
    fakes.anthropic.reply(RECORDED_ANSWERS.anthropic.text.plain.reply());
    const { result: response, sent } = await sendThrough('anthropic', () =>
      callForm('gemini', gateway.url, key, KIND_PROVIDERS.anthropic.model, body),
    );
    expect(response.status, await response.clone().text()).toBe(200);
    const messages = sent.body.messages as Array<Record<string, unknown>>;
    expect(messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'call_1_0', name: 'get_weather', input: { location: 'Paris' } },
          { type: 'tool_use', id: 'call_1_1', name: 'get_weather', input: { location: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1_0', content: '{"temp_c":18}' },
          { type: 'tool_result', tool_use_id: 'call_1_1', content: '{"temp_c":24}' },
        ],
      },
    ]);
  });
});

describe('a Gemini-form client calling functions on a gemini upstream', () => {
  // Gemini 3 refuses (400) a history whose function calls lack the `thoughtSignature` it gave
  // them. A client sends back what the gateway showed it, so that must still carry a signature
  // (the vendor's own, or the value it documents for history it did not write).
  it('can send back the model turn it was given: the next request’s function call has a thought signature', async () => {
    const { model } = KIND_PROVIDERS.gemini;
    const question = { role: 'user', parts: [{ text: 'Start the party.' }] };
    fakes.gemini.reply(RECORDED_ANSWERS.gemini.tool.plain.reply());
    const first = await callForm('gemini', gateway.url, key, model, {
      contents: [question],
      tools: toolsIn.gemini,
    });
    expect(first.status).toBe(200);
    const modelTurn = (
      (await first.json()) as { candidates: Array<{ content: { parts: unknown[] } }> }
    ).candidates[0]!.content;

    fakes.gemini.reply(RECORDED_ANSWERS.gemini.text.plain.reply());
    const { result: second, sent } = await sendThrough('gemini', () =>
      callForm('gemini', gateway.url, key, model, {
        contents: [
          question,
          modelTurn,
          {
            role: 'user',
            parts: [
              { functionResponse: { name: 'power_disco_ball', response: { ok: true } } },
              { functionResponse: { name: 'start_music', response: { ok: true } } },
            ],
          },
        ],
        tools: toolsIn.gemini,
      }),
    );
    expect(second.status, await second.clone().text()).toBe(200);
    const sentTurn = (
      sent.body.contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>
    )[1]!;
    expect(sentTurn.role).toBe('model');
    // With the id the gateway's answer gave the call (the vendor's answer had none).
    expect(sentTurn.parts[0]!.functionCall).toEqual({
      name: 'power_disco_ball',
      args: { power: true },
      id: 'call_0',
    });
    expect(sentTurn.parts[0]!.thoughtSignature).toEqual(expect.any(String));
  });
});

describe('fields only the same form knows', () => {
  it('pass unchanged from the Messages form to an anthropic upstream (thinking, metadata, cache_control)', async () => {
    const body = {
      max_tokens: 2_048,
      thinking: { type: 'enabled', budget_tokens: 1_024 },
      metadata: { user_id: 'user-7' },
      system: [{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral' } }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Hello there', cache_control: { type: 'ephemeral', ttl: '1h' } },
          ],
        },
      ],
      top_k: 5,
      service_tier: 'auto',
    };
    fakes.anthropic.reply(RECORDED_ANSWERS.anthropic.text.plain.reply());
    const { result: response, sent } = await sendThrough('anthropic', () =>
      callForm('messages', gateway.url, key, KIND_PROVIDERS.anthropic.model, body),
    );
    expect(response.status, await response.clone().text()).toBe(200);
    expect(sent.body).toEqual({
      ...body,
      model: KIND_PROVIDERS.anthropic.upstreamModel,
      stream: false,
    });
  });

  it('pass unchanged from the chat-completion form to an openai-compatible upstream (response_format, logprobs, parallel_tool_calls)', async () => {
    const body = {
      messages: [{ role: 'user', content: 'Hello there' }],
      max_completion_tokens: 500,
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'answer',
          strict: true,
          schema: { type: 'object', properties: { answer: { type: 'string' } } },
        },
      },
      logprobs: true,
      top_logprobs: 2,
      parallel_tool_calls: false,
      tools: toolsIn.chat_completions,
    };
    fakes['openai-compatible'].reply(RECORDED_ANSWERS['openai-compatible'].text.stream.reply());
    const { result: response, sent } = await sendThrough('openai-compatible', () =>
      callForm(
        'chat_completions',
        gateway.url,
        key,
        KIND_PROVIDERS['openai-compatible'].model,
        body,
        { stream: true },
      ),
    );
    expect((await readFormAnswer('chat_completions', response, true)).text).toBe(
      'Hello! How can I assist you today?',
    );
    expect(sent.body).toEqual({
      ...body,
      model: KIND_PROVIDERS['openai-compatible'].upstreamModel,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('pass unchanged from the Gemini form to a gemini upstream (safetySettings, responseSchema)', async () => {
    const body = {
      contents: [{ role: 'user', parts: [{ text: 'Hello there' }] }],
      safetySettings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_ONLY_HIGH' }],
      generationConfig: {
        maxOutputTokens: 700,
        responseMimeType: 'application/json',
        responseSchema: {
          type: 'OBJECT',
          properties: { answer: { type: 'STRING' } },
          required: ['answer'],
        },
        thinkingConfig: { thinkingBudget: 0 },
      },
    };
    fakes.gemini.reply(RECORDED_ANSWERS.gemini.text.plain.reply());
    const { result: response, sent } = await sendThrough('gemini', () =>
      callForm('gemini', gateway.url, key, KIND_PROVIDERS.gemini.model, body),
    );
    expect(response.status, await response.clone().text()).toBe(200);
    expect(sent.body).toEqual(body);
  });

  // response_format toward Anthropic is mapped now (docs/reasoning-and-structured-outputs.md).
  const CROSS_FORM_FIELDS = [
    { form: 'chat_completions', kind: 'anthropic', field: 'seed', extra: { seed: 42 } },
    { form: 'chat_completions', kind: 'gemini', field: 'logprobs', extra: { logprobs: true } },
    {
      form: 'messages',
      kind: 'openai-compatible',
      field: 'service_tier',
      extra: { service_tier: 'standard_only' },
    },
    { form: 'messages', kind: 'gemini', field: 'top_k', extra: { top_k: 5 } },
    {
      form: 'gemini',
      kind: 'openai-compatible',
      field: 'safetySettings',
      extra: { safetySettings: [] },
    },
    {
      form: 'gemini',
      kind: 'anthropic',
      field: 'generationConfig.responseModalities',
      extra: { generationConfig: { maxOutputTokens: 100, responseModalities: ['TEXT'] } },
    },
  ] as const;

  it.each(CROSS_FORM_FIELDS)(
    'drop $field when $form goes to a $kind upstream, and say so in headers and record',
    async ({ form, kind, field, extra }) => {
      for (const stream of [false, true]) {
        const recorded = RECORDED_ANSWERS[kind].text[stream ? 'stream' : 'plain'];
        fakes[kind].reply(recorded.reply());
        const { result: response, sent } = await sendThrough(kind, () =>
          callForm(
            form,
            gateway.url,
            key,
            KIND_PROVIDERS[kind].model,
            { ...simpleBody(form, false), ...extra },
            { stream },
          ),
        );
        expect(response.status, await response.clone().text()).toBe(200);
        expect(response.headers.get('x-gateway-dropped-params')).toBe(field);
        expect(response.headers.get('x-gateway-adjusted-params')).toBeNull();
        expect((await readFormAnswer(form, response, stream)).text).toBe(recorded.text);
        // Not sent under any name the upstream might read.
        const leaf = field.split('.').at(-1)!;
        expect(JSON.stringify(sent.body)).not.toContain(`"${leaf}"`);
        const record = await generationRecord(response.headers.get('cf-ray')!);
        expect(record.translation).toEqual({ dropped: [field], adjusted: [] });
      }
    },
  );

  it.each(CROSS_FORM_FIELDS)(
    'refuse $field with 400 naming it and the provider in strict mode ($form to $kind)',
    async ({ form, kind, field, extra }) => {
      const before = fakes[kind].requests.length;
      const response = await callForm(
        form,
        gateway.url,
        key,
        KIND_PROVIDERS[kind].model,
        { ...simpleBody(form, false), ...extra },
        { headers: { 'x-gateway-require-parameters': 'true' } },
      );
      expect(response.status).toBe(400);
      const message = formErrorMessage(form, await response.json());
      expect(message).toContain(`'${field}'`);
      expect(message).toContain(`'${KIND_PROVIDERS[kind].provider}'`);
      // Refused before anything went upstream, and not charged.
      expect(fakes[kind].requests.length).toBe(before);
      const record = await getWithKey(
        `${gateway.url}/v1/generation?id=${response.headers.get('cf-ray')}`,
        key,
      );
      expect(record.status).toBe(404);
    },
  );

  it("turn strict with the chat form's provider.require_parameters, which never goes upstream", async () => {
    const before = fakes.anthropic.requests.length;
    const strict = await callForm(
      'chat_completions',
      gateway.url,
      key,
      KIND_PROVIDERS.anthropic.model,
      {
        ...simpleBody('chat_completions', false),
        seed: 42,
        provider: { require_parameters: true },
      },
    );
    expect(strict.status).toBe(400);
    expect(formErrorMessage('chat_completions', await strict.json())).toContain("'seed'");
    expect(fakes.anthropic.requests.length).toBe(before);

    fakes['openai-compatible'].reply(RECORDED_ANSWERS['openai-compatible'].text.plain.reply());
    const { result: response, sent } = await sendThrough('openai-compatible', () =>
      callForm('chat_completions', gateway.url, key, KIND_PROVIDERS['openai-compatible'].model, {
        ...simpleBody('chat_completions', false),
        provider: { require_parameters: false, order: ['somewhere'], zdr: true },
      }),
    );
    expect(response.status, await response.clone().text()).toBe(200);
    expect(sent.body).not.toHaveProperty('provider');
    // `order` is honoured (docs/routing.md); an option the gateway does not act on is reported.
    expect(response.headers.get('x-gateway-dropped-params')).toBe('provider.zdr');
  });

  it('never drop what the model sees: a document block toward another kind is refused', async () => {
    const before = fakes['openai-compatible'].requests.length;
    const response = await callForm(
      'messages',
      gateway.url,
      key,
      KIND_PROVIDERS['openai-compatible'].model,
      {
        max_tokens: 100,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Summarise this.' },
              { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } },
            ],
          },
        ],
      },
    );
    expect(response.status).toBe(400);
    expect(formErrorMessage('messages', await response.json())).toContain("'messages.0.content.1'");
    expect(fakes['openai-compatible'].requests.length).toBe(before);
  });
});

describe('n above 1 on the chat-completion form', () => {
  it('is refused with 400 naming n and the provider before anything goes upstream, and not charged', async () => {
    const { model, provider } = KIND_PROVIDERS['openai-compatible'];
    const before = fakes['openai-compatible'].requests.length;
    const response = await callForm('chat_completions', gateway.url, key, model, {
      ...simpleBody('chat_completions', false),
      n: 3,
    });
    expect(response.status).toBe(400);
    const message = formErrorMessage('chat_completions', await response.json());
    expect(message).toContain("'n'");
    expect(message).toContain(`'${provider}'`);
    expect(fakes['openai-compatible'].requests.length).toBe(before);
    const record = await getWithKey(
      `${gateway.url}/v1/generation?id=${response.headers.get('cf-ray')}`,
      key,
    );
    expect(record.status).toBe(404);
  });

  it('n: 1 still reaches the upstream as sent', async () => {
    fakes['openai-compatible'].reply(RECORDED_ANSWERS['openai-compatible'].text.plain.reply());
    const { result: response, sent } = await sendThrough('openai-compatible', () =>
      callForm('chat_completions', gateway.url, key, KIND_PROVIDERS['openai-compatible'].model, {
        ...simpleBody('chat_completions', false),
        n: 1,
      }),
    );
    expect(response.status, await response.clone().text()).toBe(200);
    expect(sent.body.n).toBe(1);
  });
});

/** An OpenAI-compatible answer with one call to `get_weather` carrying `argumentsText`. */
function openAiToolAnswer(
  argumentsText: string,
  finishReason: 'tool_calls' | 'length',
  stream: boolean,
): FakeReply {
  const call = {
    id: 'call_9',
    type: 'function',
    function: { name: 'get_weather', arguments: argumentsText },
  };
  const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
  if (!stream) {
    return {
      body: {
        id: 'chatcmpl-x',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-upstream-1',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: null, tool_calls: [call] },
            finish_reason: finishReason,
          },
        ],
        usage,
      },
    };
  }
  const chunk = (choices: unknown[], extra: object = {}) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-x', object: 'chat.completion.chunk', created: 1, model: 'gpt-upstream-1', choices, ...extra })}\n\n`;
  return {
    events: [
      chunk([
        {
          index: 0,
          delta: { role: 'assistant', tool_calls: [{ index: 0, ...call }] },
          finish_reason: null,
        },
      ]),
      chunk([{ index: 0, delta: {}, finish_reason: finishReason }]),
      chunk([], { usage }),
      'data: [DONE]\n\n',
    ],
  };
}

describe('tool arguments that are not a JSON object, on the forms that need one', () => {
  const { model } = KIND_PROVIDERS['openai-compatible'];
  const cases = (['messages', 'gemini'] as const).flatMap((form) =>
    (['plain', 'stream'] as const).flatMap((mode) =>
      [
        { form, mode, what: 'an array', argumentsText: '["a","b"]' },
        { form, mode, what: 'unfinished JSON at a natural end', argumentsText: '{"city": "Par' },
      ].map((entry) => ({ ...entry })),
    ),
  );

  it.each(cases)(
    '$what is the provider’s fault, never an empty object ($form, $mode)',
    async ({ form, mode, argumentsText }) => {
      const stream = mode === 'stream';
      fakes['openai-compatible'].reply(openAiToolAnswer(argumentsText, 'tool_calls', stream));
      const response = await callForm(form, gateway.url, key, model, simpleBody(form, true), {
        stream,
      });
      let message: string;
      if (stream) {
        const answer = await readFormAnswer(form, response, true);
        expect(answer.toolCalls).toEqual([]);
        expect(answer.cleanEnd).toBe(false);
        expect(answer.streamError).not.toBeNull();
        const error = streamErrorOf(form, answer.streamError!);
        expect(error.status).toBe(form === 'messages' ? 'api_error' : 502);
        message = error.message;
      } else {
        expect(response.status).toBe(502);
        message = formErrorMessage(form, await response.json());
      }
      expect(message).toContain('The provider sent an answer the gateway cannot read');
      expect(message).toContain("'get_weather'");
      expect(message).toContain('not a JSON object');
    },
  );

  it.each(['messages', 'gemini'] as const)(
    'a call cut short by max_tokens is left out of the plain answer, which says max_tokens ($0)',
    async (form) => {
      fakes['openai-compatible'].reply(openAiToolAnswer('{"city": "Par', 'length', false));
      const response = await callForm(form, gateway.url, key, model, simpleBody(form, true));
      const answer = await readFormAnswer(form, response, false);
      expect(answer.toolCalls).toEqual([]);
      expect(answer.finish).toBe(form === 'messages' ? 'max_tokens' : 'MAX_TOKENS');
    },
  );

  it('a call cut short by max_tokens streams to the Messages form as the vendor streams one: its partial JSON, then max_tokens', async () => {
    fakes['openai-compatible'].reply(openAiToolAnswer('{"city": "Par', 'length', true));
    const response = await callForm(
      'messages',
      gateway.url,
      key,
      model,
      simpleBody('messages', true),
      {
        stream: true,
      },
    );
    const events = parseSse(await response.text()).map(({ data }) => JSON.parse(data));
    expect(
      events.find((event) => event.type === 'content_block_start')?.content_block,
    ).toMatchObject({
      type: 'tool_use',
      name: 'get_weather',
    });
    expect(events.find((event) => event.type === 'content_block_delta')?.delta).toEqual({
      type: 'input_json_delta',
      partial_json: '{"city": "Par',
    });
    expect(events.find((event) => event.type === 'message_delta')?.delta.stop_reason).toBe(
      'max_tokens',
    );
    expect(events.at(-1)?.type).toBe('message_stop');
  });

  it('a call cut short by max_tokens is left out of the Gemini stream, which ends with MAX_TOKENS', async () => {
    fakes['openai-compatible'].reply(openAiToolAnswer('{"city": "Par', 'length', true));
    const response = await callForm('gemini', gateway.url, key, model, simpleBody('gemini', true), {
      stream: true,
    });
    const answer = await readFormAnswer('gemini', response, true);
    expect(answer.streamError).toBeNull();
    expect(answer.toolCalls).toEqual([]);
    expect(answer.finish).toBe('MAX_TOKENS');
  });

  it('reach the chat-completion form as the upstream sent them (that form carries text)', async () => {
    fakes['openai-compatible'].reply(openAiToolAnswer('["a","b"]', 'tool_calls', false));
    const response = await callForm(
      'chat_completions',
      gateway.url,
      key,
      model,
      simpleBody('chat_completions', true),
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      choices: Array<{ message: { tool_calls: Array<{ function: { arguments: string } }> } }>;
    };
    expect(body.choices[0]!.message.tool_calls[0]!.function.arguments).toBe('["a","b"]');
  });
});

describe("an upstream's error message", () => {
  it('reaches the client without its partly masked key or its server paths', async () => {
    const upstreamKey = upstreamKeys[KIND_PROVIDERS['openai-compatible'].provider]!;
    const masked = `sk-upstr****${upstreamKey.slice(-4)}`;
    fakes['openai-compatible'].reply({
      status: 400,
      body: {
        error: {
          message: `Incorrect API key provided: ${masked}. Failed at /srv/app/server.py line 42.`,
          type: 'invalid_request_error',
        },
      },
    });
    const response = await callForm(
      'chat_completions',
      gateway.url,
      key,
      KIND_PROVIDERS['openai-compatible'].model,
      simpleBody('chat_completions', false),
    );
    expect(response.status).toBe(400);
    const message = formErrorMessage('chat_completions', await response.json());
    expect(message).toContain('Incorrect API key provided: [redacted]. Failed at [path] line 42.');
    expect(message).not.toContain('sk-upstr');
    expect(message).not.toContain(upstreamKey.slice(-4));
    expect(message).not.toContain('/srv/app');
  });
});

describe('a bare model name on the Gemini form that several catalog models share', () => {
  let twins: TestGateway;
  let twinsKey: string;
  beforeAll(async () => {
    const model = (id: string) => ({
      id,
      upstreamModel: 'gpt-upstream-1',
      prompt: '0.000001',
      completion: '0.000002',
    });
    const { providers } = providersFileFor([
      {
        id: 'twins',
        kind: 'openai-compatible',
        url: fakes['openai-compatible'].url,
        retry: { max_attempts: 1 },
        models: [model('alpha/dup'), model('beta/dup'), model('alpha/solo')],
      },
    ]);
    twins = await startTestGateway({ providers });
    twinsKey = (await twins.createKey({ kind: 'account', limitUsd: 1 })).key;
  });
  afterAll(async () => {
    await twins?.stop();
  });

  it('is a 400 that says it is ambiguous and names the full ids to use, and nothing goes upstream', async () => {
    const before = fakes['openai-compatible'].requests.length;
    const response = await callForm(
      'gemini',
      twins.url,
      twinsKey,
      'dup',
      simpleBody('gemini', false),
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { status: string; message: string } };
    expect(body.error.status).toBe('INVALID_ARGUMENT');
    expect(body.error.message).toContain("'dup' is ambiguous");
    expect(body.error.message).toContain('alpha/dup');
    expect(body.error.message).toContain('beta/dup');
    expect(fakes['openai-compatible'].requests.length).toBe(before);
  });

  it('a bare name only one model has still resolves, and an unknown one is still a 404', async () => {
    fakes['openai-compatible'].reply(RECORDED_ANSWERS['openai-compatible'].text.plain.reply());
    const solo = await callForm('gemini', twins.url, twinsKey, 'solo', simpleBody('gemini', false));
    expect(solo.status, await solo.clone().text()).toBe(200);
    expect(((await solo.json()) as { modelVersion: string }).modelVersion).toBe('alpha/solo');
    const unknown = await callForm(
      'gemini',
      twins.url,
      twinsKey,
      'nope',
      simpleBody('gemini', false),
    );
    expect(unknown.status).toBe(404);
  });
});
