/**
 * An answer the client's form cannot carry (a tool call whose arguments are not a JSON object, for
 * the Messages and Gemini forms) is refused with the form's 502 or error event, and its record
 * says so: ended early with finish reason `error`, charged the usage the upstream reported (it
 * served the answer), never `completed`. The model wrote it, so the provider's breaker is not
 * told. A chat-completions client of the same upstream gets the call as it came.
 */
import { generationRecordSchema, type GenerationRecord } from '../../contract/gateway';
import type { PublicFormName } from '../canonical/model';
import {
  startFakeUpstream,
  type FakeReply,
  type FakeUpstream,
} from '../../testing/upstreams/fake-upstream';
import {
  callForm,
  formErrorMessage,
  readFormAnswer,
  streamErrorOf,
} from '../../testing/upstreams/public-forms';
import { providersFileFor } from '../../testing/upstreams/upstream-kit';
import {
  capturingLogger,
  expectCfRay,
  getWithKey,
  startTestGateway,
  toNanos,
  type TestGateway,
} from '../../testing/gateway-support';

const MODEL = 'test/oai-model';
const PROVIDER = 'oai';
const PROMPT_NANOS = 100;
const COMPLETION_NANOS = 2_000;
/** What the upstream says it served, for every answer here. */
const USAGE = { prompt_tokens: 31, completion_tokens: 17, total_tokens: 48 };

let upstream: FakeUpstream;
let upstreamKey: string;
let gateway: TestGateway;
let key: string;
const log = capturingLogger();

beforeAll(async () => {
  upstream = await startFakeUpstream();
  const setup = providersFileFor([
    {
      id: PROVIDER,
      kind: 'openai-compatible',
      url: upstream.url,
      retry: { max_attempts: 1 },
      // One failure would open it: a breaker still healthy afterwards was never told.
      breaker: { failure_threshold: 1, cooldown_ms: 60_000 },
      models: [
        {
          id: MODEL,
          upstreamModel: 'gpt-upstream-1',
          prompt: (PROMPT_NANOS / 1e9).toFixed(9),
          completion: (COMPLETION_NANOS / 1e9).toFixed(9),
        },
      ],
    },
  ]);
  upstreamKey = setup.upstreamKeys[PROVIDER]!;
  gateway = await startTestGateway({ providers: setup.providers }, { logger: log.logger });
  key = (await gateway.createKey({ kind: 'account', limitUsd: 10 })).key;
});
afterAll(async () => {
  await gateway?.stop();
  await upstream?.close();
});

/** An OpenAI-compatible answer calling `get_weather` with `argumentsText`, plain or streamed. */
function toolAnswer(argumentsText: string, finishReason: string, stream: boolean): FakeReply {
  const call = {
    id: 'call_1',
    type: 'function',
    function: { name: 'get_weather', arguments: argumentsText },
  };
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
        usage: USAGE,
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
      chunk([], { usage: USAGE }),
      'data: [DONE]\n\n',
    ],
  };
}

const TOOL_SCHEMA = { type: 'object', properties: { city: { type: 'string' } } };

/** A one-line question offering `get_weather`, in the form's own shape. */
function body(form: PublicFormName): Record<string, unknown> {
  switch (form) {
    case 'chat_completions':
      return {
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        max_tokens: 1_000,
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: TOOL_SCHEMA } }],
      };
    case 'messages':
      return {
        max_tokens: 1_000,
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools: [{ name: 'get_weather', input_schema: TOOL_SCHEMA }],
      };
    case 'gemini':
      return {
        contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }],
        generationConfig: { maxOutputTokens: 1_000 },
        tools: [{ functionDeclarations: [{ name: 'get_weather', parameters: TOOL_SCHEMA }] }],
      };
    case 'responses':
      return {
        input: 'Weather in Paris?',
        max_output_tokens: 1_000,
        tools: [{ type: 'function', name: 'get_weather', parameters: TOOL_SCHEMA }],
      };
  }
}

async function generationRecord(cfRay: string): Promise<GenerationRecord> {
  const response = await getWithKey(`${gateway.url}/v1/generation?id=${cfRay}`, key);
  expect(response.status).toBe(200);
  return generationRecordSchema.parse(await response.json());
}

async function breakerStatus(): Promise<string> {
  const response = await fetch(`${gateway.url}/v1/models/${MODEL}/endpoints`);
  const listing = (await response.json()) as { data: Array<{ status: string }> };
  return listing.data[0]!.status;
}

const charged = USAGE.prompt_tokens * PROMPT_NANOS + USAGE.completion_tokens * COMPLETION_NANOS;

describe('a tool call whose arguments the client’s form cannot carry', () => {
  const cases = (['messages', 'gemini'] as const).flatMap((form) =>
    (['plain', 'stream'] as const).flatMap((mode) =>
      [
        { what: 'an array', argumentsText: '["a","b"]', finish: 'tool_calls' },
        { what: 'a string', argumentsText: '"Paris"', finish: 'tool_calls' },
        {
          what: 'unfinished JSON at a natural end',
          argumentsText: '{"city": "Par',
          finish: 'stop',
        },
      ].map((entry) => ({ form, mode, ...entry })),
    ),
  );

  it.each(cases)(
    'is refused, and recorded as ended early with finish reason error, charged the upstream’s usage ($what, $form, $mode)',
    async ({ form, mode, argumentsText, finish }) => {
      const stream = mode === 'stream';
      upstream.reply(toolAnswer(argumentsText, finish, stream));
      const response = await callForm(form, gateway.url, key, MODEL, body(form), { stream });
      const cfRay = expectCfRay(response);
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
      expect(message).toContain(
        "The provider sent an answer the gateway cannot read: its call to tool 'get_weather'",
      );
      expect(message).toContain('not a JSON object');

      const record = await generationRecord(cfRay);
      expect(record).toMatchObject({
        outcome: 'ended_early',
        finish_reason: 'error',
        provider: PROVIDER,
        streamed: stream,
        prompt_tokens: USAGE.prompt_tokens,
        completion_tokens: USAGE.completion_tokens,
        usage_estimated: false,
      });
      expect(toNanos(record.cost_usd)).toBe(charged);

      // The model's output, not the provider failing: the breaker (opened by one failure) is not.
      expect(await breakerStatus()).toBe('healthy');
      const warnings = log
        .text()
        .split('\n')
        .filter((line) => line.includes(cfRay) && line.includes('answer refused'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, provider: PROVIDER });
      expect(log.text()).not.toContain(upstreamKey);
      expect(log.text()).not.toContain(key);
    },
  );

  it.each(['plain', 'stream'] as const)(
    'reaches a chat-completions client as the upstream sent it, completed ($0)',
    async (mode) => {
      const stream = mode === 'stream';
      upstream.reply(toolAnswer('["a","b"]', 'tool_calls', stream));
      const response = await callForm(
        'chat_completions',
        gateway.url,
        key,
        MODEL,
        body('chat_completions'),
        {
          stream,
        },
      );
      const cfRay = expectCfRay(response);
      const answer = await readFormAnswer('chat_completions', response, stream);
      expect(answer.toolCalls).toEqual([{ id: 'call_1', name: 'get_weather', args: ['a', 'b'] }]);
      expect(answer.finish).toBe('tool_calls');
      const record = await generationRecord(cfRay);
      expect(record).toMatchObject({
        outcome: 'completed',
        finish_reason: 'tool_calls',
        prompt_tokens: USAGE.prompt_tokens,
        completion_tokens: USAGE.completion_tokens,
      });
    },
  );
});
