/**
 * The vendors' official clients (`openai`, `@anthropic-ai/sdk`, `@google/genai`), pointed at the
 * gateway with their own retries off, to each upstream provider kind: the recorded answers must
 * reach them as each client understands its vendor's API, plain and streamed, text and tool calls.
 * The upstream must see its own key and model, and nothing of the client's key or headers.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import OpenAI from 'openai';
import type { UpstreamKind } from '../providers/upstream/provider-config';
import {
  KIND_PROVIDERS,
  RECORDED_ANSWERS,
  startKindUpstreams,
  type KindUpstreams,
  type RecordedAnswer,
} from '../../testing/upstreams/kind-upstreams';
import { UPSTREAM_KINDS } from '../../testing/upstreams/upstream-kit';
import { messagesUsage } from '../../testing/upstreams/public-forms';
import { startTestGateway, toNanos, type TestGateway } from '../../testing/gateway-support';

let gateway: TestGateway;
let key: string;
let upstreams: KindUpstreams;
let openai: OpenAI;
let anthropic: Anthropic;
let google: GoogleGenAI;

beforeAll(async () => {
  upstreams = await startKindUpstreams();
  gateway = await startTestGateway({ providers: upstreams.providers });
  key = (await gateway.createKey({ kind: 'account', limitUsd: 100 })).key;
  // The gateway is the only retry loop: each client's own retries are off.
  openai = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
  google = new GoogleGenAI({
    apiKey: key,
    httpOptions: { baseUrl: gateway.url, retryOptions: { attempts: 1 } },
  });
});
afterAll(async () => {
  await gateway?.stop();
  await upstreams?.close();
});

const TOOL = {
  name: 'get_weather',
  description: 'Get the current weather in a given location',
  schema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
};

/** What every client's answer is compared by. */
type Seen = {
  text: string;
  toolCalls: Array<{ id: string | null; name: string; args: unknown }>;
  finish: string | null | undefined;
  usage: { prompt: number; completion: number };
};

const CASES = UPSTREAM_KINDS.flatMap((kind) =>
  (['text', 'tool'] as const).flatMap((answer) =>
    (['plain', 'stream'] as const).map((mode) => ({ kind, answer, mode })),
  ),
);

/** Scripts the recorded answer, runs the client, and checks what reached the upstream. */
async function through(
  kind: UpstreamKind,
  recorded: RecordedAnswer,
  run: () => Promise<Seen>,
  clientHeaders: RegExp,
): Promise<Seen> {
  const fake = upstreams.fakes[kind];
  const before = fake.requests.length;
  fake.reply(recorded.reply());
  const seen = await run();
  expect(fake.requests.length).toBe(before + 1);
  const sent = fake.requests.at(-1)!;
  const upstreamKey = upstreams.upstreamKeys[KIND_PROVIDERS[kind].provider]!;
  const keyHeader = {
    'openai-compatible': 'authorization',
    anthropic: 'x-api-key',
    gemini: 'x-goog-api-key',
  }[kind];
  expect(sent.headers[keyHeader]).toBe(
    kind === 'openai-compatible' ? `Bearer ${upstreamKey}` : upstreamKey,
  );
  const upstreamModel = KIND_PROVIDERS[kind].upstreamModel;
  if (kind === 'gemini') expect(sent.path).toContain(`/models/${upstreamModel}:`);
  else expect(sent.body.model).toBe(upstreamModel);
  // Neither the gateway key nor the client's own headers travel upstream.
  expect(`${sent.path} ${JSON.stringify(sent.headers)} ${JSON.stringify(sent.body)}`).not.toContain(
    key,
  );
  expect(Object.keys(sent.headers).filter((name) => clientHeaders.test(name))).toEqual([]);
  return seen;
}

function expectRecorded(seen: Seen, recorded: RecordedAnswer, finish: string) {
  expect(seen.text).toBe(recorded.text);
  expect(seen.toolCalls).toEqual(recorded.toolCalls);
  expect(seen.finish).toBe(finish);
  expect(seen.usage).toEqual(recorded.usage);
}

const costOf = (kind: UpstreamKind, usage: { prompt: number; completion: number }) =>
  usage.prompt * KIND_PROVIDERS[kind].promptNanos +
  usage.completion * KIND_PROVIDERS[kind].completionNanos;

describe('the openai client', () => {
  it.each(CASES)(
    'gets a $kind upstream’s $answer answer ($mode)',
    async ({ kind, answer, mode }) => {
      const recorded = RECORDED_ANSWERS[kind][answer][mode];
      const request = {
        model: KIND_PROVIDERS[kind].model,
        messages: [{ role: 'user' as const, content: 'Hello there' }],
        max_tokens: 1_000,
        ...(answer === 'tool' && {
          tools: [
            {
              type: 'function' as const,
              function: { name: TOOL.name, description: TOOL.description, parameters: TOOL.schema },
            },
          ],
        }),
      };
      let cost = 0;
      const seen = await through(
        kind,
        recorded,
        async () => {
          const completion =
            mode === 'plain'
              ? await openai.chat.completions.create(request)
              : await openai.chat.completions
                  .stream({ ...request, stream_options: { include_usage: true } })
                  .finalChatCompletion();
          const choice = completion.choices[0]!;
          // The gateway's `cost` rides in usage, where the client keeps it.
          cost = (completion.usage as unknown as { cost: number }).cost;
          return {
            text: choice.message.content ?? '',
            toolCalls: (choice.message.tool_calls ?? []).map((call) => {
              if (call.type !== 'function')
                throw new Error(`unexpected tool call type ${call.type}`);
              return {
                id: call.id,
                name: call.function.name,
                args: JSON.parse(call.function.arguments),
              };
            }),
            finish: choice.finish_reason,
            usage: {
              prompt: completion.usage!.prompt_tokens,
              completion: completion.usage!.completion_tokens,
            },
          };
        },
        /^x-stainless/,
      );
      expectRecorded(seen, recorded, answer === 'tool' ? 'tool_calls' : 'stop');
      expect(toNanos(cost)).toBe(costOf(kind, recorded.usage));
    },
  );
});

describe('the @anthropic-ai/sdk client', () => {
  it.each(CASES)(
    'gets a $kind upstream’s $answer answer ($mode)',
    async ({ kind, answer, mode }) => {
      const recorded = RECORDED_ANSWERS[kind][answer][mode];
      const request = {
        model: KIND_PROVIDERS[kind].model,
        max_tokens: 1_000,
        messages: [{ role: 'user' as const, content: 'Hello there' }],
        ...(answer === 'tool' && {
          tools: [
            {
              name: TOOL.name,
              description: TOOL.description,
              input_schema: TOOL.schema as Anthropic.Tool.InputSchema,
            },
          ],
        }),
      };
      let cost = 0;
      const seen = await through(
        kind,
        recorded,
        async () => {
          let message: Anthropic.Message;
          if (mode === 'plain') {
            message = await anthropic.messages.create(request);
            cost = (message.usage as unknown as { cost_usd: number }).cost_usd;
          } else {
            // The client's final message keeps only the usage fields it knows; the gateway's
            // `cost_usd` is on the `message_delta` event it saw.
            const stream = anthropic.messages.stream(request);
            stream.on('streamEvent', (event) => {
              if (event.type === 'message_delta')
                cost = (event.usage as unknown as { cost_usd: number }).cost_usd;
            });
            message = await stream.finalMessage();
          }
          return {
            text: message.content
              .map((block) => (block.type === 'text' ? block.text : ''))
              .join(''),
            toolCalls: message.content.flatMap((block) =>
              block.type === 'tool_use'
                ? [{ id: block.id, name: block.name, args: block.input }]
                : [],
            ),
            finish: message.stop_reason,
            usage: messagesUsage(message.usage),
          };
        },
        /^x-stainless|^anthropic-beta$/,
      );
      expectRecorded(seen, recorded, answer === 'tool' ? 'tool_use' : 'end_turn');
      expect(toNanos(cost)).toBe(costOf(kind, recorded.usage));
    },
  );
});

describe('the @google/genai client', () => {
  /** The parts of every chunk, in order: texts joined, function calls listed. */
  function seenIn(chunks: GenerateContentResponse[]): Seen {
    const parts = chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []);
    const last = chunks.at(-1)!;
    return {
      // A thought is reasoning, not the answer's text.
      text: parts.map((part) => (part.thought ? '' : (part.text ?? ''))).join(''),
      toolCalls: parts.flatMap((part) =>
        part.functionCall
          ? [
              {
                id: part.functionCall.id ?? null,
                name: part.functionCall.name!,
                args: part.functionCall.args,
              },
            ]
          : [],
      ),
      finish: last.candidates?.[0]?.finishReason,
      usage: {
        prompt: last.usageMetadata!.promptTokenCount!,
        // Thinking is counted apart from the candidates; both are the completion.
        completion:
          last.usageMetadata!.candidatesTokenCount! + (last.usageMetadata!.thoughtsTokenCount ?? 0),
      },
    };
  }

  it.each(CASES)(
    'gets a $kind upstream’s $answer answer ($mode)',
    async ({ kind, answer, mode }) => {
      const recorded = RECORDED_ANSWERS[kind][answer][mode];
      const request = {
        model: KIND_PROVIDERS[kind].model,
        contents: 'Hello there',
        config: {
          maxOutputTokens: 1_000,
          ...(answer === 'tool' && {
            tools: [
              {
                functionDeclarations: [
                  {
                    name: TOOL.name,
                    description: TOOL.description,
                    parametersJsonSchema: TOOL.schema,
                  },
                ],
              },
            ],
          }),
        },
      };
      const seen = await through(
        kind,
        recorded,
        async () => {
          if (mode === 'plain') return seenIn([await google.models.generateContent(request)]);
          const chunks: GenerateContentResponse[] = [];
          for await (const chunk of await google.models.generateContentStream(request))
            chunks.push(chunk);
          expect(chunks.length).toBeGreaterThan(1);
          return seenIn(chunks);
        },
        /^x-goog-api-client$/,
      );
      // Each call with the upstream's id; the vendor says STOP for an end with calls too.
      expectRecorded(seen, recorded, 'STOP');
    },
  );
});
