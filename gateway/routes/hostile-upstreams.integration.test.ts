/**
 * Upstreams that misbehave on purpose, of each provider kind, on loopback, heard through each
 * public form, plain and streamed: a final count that is missing, negative, fractional, absurd or
 * text after a start-of-stream placeholder; an error inside the answer that names internal
 * addresses, server paths and the gateway's own upstream key; more text than `max_tokens`. Each
 * is checked for what is charged, what the record says (`usage_estimated`, `charge_capped`), and
 * that nothing of the upstream's secrets reaches a byte the client gets, or the log.
 */
import { generationRecordSchema } from '../../contract/gateway';
import type { PublicFormName } from '../canonical/model';
import { countTextTokens, loadTokenizer } from '../pipeline/usage-estimate';
import type { UpstreamKind } from '../providers/upstream/provider-config';
import type { FakeReply } from '../../testing/upstreams/fake-upstream';
import {
  KIND_PROVIDERS,
  startKindUpstreams,
  type KindUpstreams,
} from '../../testing/upstreams/kind-upstreams';
import { callForm, PUBLIC_FORMS, readFormAnswer } from '../../testing/upstreams/public-forms';
import { UPSTREAM_KINDS } from '../../testing/upstreams/upstream-kit';
import {
  capturingLogger,
  getWithKey,
  startTestGateway,
  toNanos,
  type TestGateway,
} from '../../testing/gateway-support';

/** The prompt every hostile upstream reports, validly. */
const PROMPT = 12;
/** 305 words, about one token each: far more than the 50 tokens some requests reserve. */
const WORDS = Array.from(
  { length: 305 },
  (_, index) => ['river', 'stone', 'light', 'maple', 'cloud'][index % 5],
);
const TEXT = WORDS.join(' ');
/** The text as the upstream streams it: 20 words an event. */
const PIECES = Array.from(
  { length: Math.ceil(WORDS.length / 20) },
  (_, index) => (index === 0 ? '' : ' ') + WORDS.slice(index * 20, index * 20 + 20).join(' '),
);
/** What an upstream streams before its in-band error. */
const BEFORE_ERROR = PIECES.slice(0, 3);
const HOST = 'ant-backend-7.corp.internal';

let upstreams: KindUpstreams;
let gateway: TestGateway;
let key: string;
const log = capturingLogger('debug');

beforeAll(async () => {
  await loadTokenizer();
  upstreams = await startKindUpstreams();
  gateway = await startTestGateway(
    { providers: upstreams.providers, settleIntervalMs: 600_000 },
    { logger: log.logger },
  );
  key = (await gateway.createKey({ kind: 'account', limitUsd: 100 })).key;
});
afterAll(async () => {
  await gateway?.stop();
  await upstreams?.close();
});

/** A final completion count as the upstream sends it, or `missing`: left out. */
type FinalCount = number | string;

/** The final usage: the prompt as reported (valid), the completion as `count` says. */
const usageOf = (kind: UpstreamKind, count: FinalCount): Record<string, unknown> => {
  const completion = count === 'missing' ? {} : null;
  switch (kind) {
    case 'openai-compatible':
      return { prompt_tokens: PROMPT, ...(completion ?? { completion_tokens: count }) };
    case 'anthropic':
      return { input_tokens: PROMPT, ...(completion ?? { output_tokens: count }) };
    case 'gemini':
      return { promptTokenCount: PROMPT, ...(completion ?? { candidatesTokenCount: count }) };
  }
};

const sse = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

/**
 * A stream of `pieces` that opens with a placeholder count (prompt 12, completion 1), then ends
 * with `final`, or with `error` in place of its end.
 */
function hostileStream(
  kind: UpstreamKind,
  pieces: string[],
  end: { final: FinalCount } | { error: Record<string, unknown> },
): string[] {
  switch (kind) {
    case 'openai-compatible': {
      const chunk = (delta: object, extra: object = {}) =>
        sse({
          id: 'chatcmpl-hostile',
          object: 'chat.completion.chunk',
          created: 1,
          model: 'gpt-upstream-1',
          choices: [{ index: 0, delta, finish_reason: null }],
          ...extra,
        });
      const events = [
        chunk(
          { role: 'assistant', content: '' },
          { usage: { prompt_tokens: PROMPT, completion_tokens: 1 } },
        ),
        ...pieces.map((text) => chunk({ content: text })),
      ];
      if ('error' in end) return [...events, sse({ error: end.error })];
      events.push(
        sse({
          id: 'chatcmpl-hostile',
          object: 'chat.completion.chunk',
          created: 1,
          model: 'gpt-upstream-1',
          choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
        }),
      );
      if (end.final !== 'missing') {
        events.push(
          sse({
            id: 'chatcmpl-hostile',
            object: 'chat.completion.chunk',
            created: 1,
            model: 'gpt-upstream-1',
            choices: [],
            usage: usageOf(kind, end.final),
          }),
        );
      }
      return [...events, 'data: [DONE]\n\n'];
    }
    case 'anthropic': {
      const events = [
        sse(
          {
            type: 'message_start',
            message: {
              id: 'msg_hostile',
              type: 'message',
              role: 'assistant',
              content: [],
              model: 'claude-upstream-1',
              stop_reason: null,
              stop_sequence: null,
              usage: { input_tokens: PROMPT, output_tokens: 1 },
            },
          },
          'message_start',
        ),
        sse(
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          'content_block_start',
        ),
        ...pieces.map((text) =>
          sse(
            { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
            'content_block_delta',
          ),
        ),
      ];
      if ('error' in end) return [...events, sse({ type: 'error', error: end.error }, 'error')];
      return [
        ...events,
        sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop'),
        sse(
          {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: usageOf(kind, end.final),
          },
          'message_delta',
        ),
        sse({ type: 'message_stop' }, 'message_stop'),
      ];
    }
    case 'gemini': {
      const chunk = (text: string, extra: object = {}, candidate: object = {}) =>
        sse({
          candidates: [{ content: { parts: [{ text }], role: 'model' }, index: 0, ...candidate }],
          modelVersion: 'gemini-upstream-1',
          ...extra,
        });
      const [first, ...rest] = pieces;
      const events = [
        chunk(first!, { usageMetadata: { promptTokenCount: PROMPT, candidatesTokenCount: 1 } }),
        ...('error' in end ? rest : rest.slice(0, -1)).map((text) => chunk(text)),
      ];
      if ('error' in end) return [...events, sse({ error: end.error })];
      return [
        ...events,
        chunk(
          rest.at(-1)!,
          end.final === 'missing' ? {} : { usageMetadata: usageOf(kind, end.final) },
          { finishReason: 'STOP' },
        ),
      ];
    }
  }
}

/** A whole answer of `text`, with `final` as its usage. */
function hostileAnswer(kind: UpstreamKind, text: string, final: FinalCount): unknown {
  const usage = usageOf(kind, final);
  switch (kind) {
    case 'openai-compatible':
      return {
        id: 'chatcmpl-hostile',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-upstream-1',
        choices: [
          { index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' },
        ],
        usage,
      };
    case 'anthropic':
      return {
        id: 'msg_hostile',
        type: 'message',
        role: 'assistant',
        model: 'claude-upstream-1',
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage,
      };
    case 'gemini':
      return {
        candidates: [
          { content: { parts: [{ text }], role: 'model' }, finishReason: 'STOP', index: 0 },
        ],
        usageMetadata: usage,
        modelVersion: 'gemini-upstream-1',
      };
  }
}

function hostileReply(kind: UpstreamKind, stream: boolean, final: FinalCount): FakeReply {
  return stream
    ? { events: hostileStream(kind, PIECES, { final }) }
    : { body: hostileAnswer(kind, TEXT, final) };
}

const question = (form: PublicFormName, maxTokens: number): Record<string, unknown> => {
  switch (form) {
    case 'chat_completions':
      return { messages: [{ role: 'user', content: 'Tell me a story' }], max_tokens: maxTokens };
    case 'messages':
      return { max_tokens: maxTokens, messages: [{ role: 'user', content: 'Tell me a story' }] };
    case 'gemini':
      return {
        contents: [{ role: 'user', parts: [{ text: 'Tell me a story' }] }],
        generationConfig: { maxOutputTokens: maxTokens },
      };
    case 'responses':
      return { input: 'Tell me a story', max_output_tokens: maxTokens };
  }
};

/** Sends the question; returns every byte the client got (headers and body), read. */
async function ask(
  kind: UpstreamKind,
  form: PublicFormName,
  stream: boolean,
  maxTokens: number,
  reply: FakeReply,
) {
  upstreams.fakes[kind].reply(reply);
  const response = await callForm(
    form,
    gateway.url,
    key,
    KIND_PROVIDERS[kind].model,
    question(form, maxTokens),
    {
      stream,
    },
  );
  const body = await response.text();
  const headers = [...response.headers.entries()].map(([name, value]) => `${name}: ${value}`);
  return {
    status: response.status,
    body,
    bytes: `${headers.join('\n')}\n\n${body}`,
    cfRay: response.headers.get('cf-ray')!,
    answer: () => readFormAnswer(form, new Response(body, { status: response.status }), stream),
  };
}

async function recordOf(cfRay: string) {
  const response = await getWithKey(`${gateway.url}/v1/generation?id=${cfRay}`, key);
  if (response.status === 404) {
    await response.text();
    return undefined;
  }
  expect(response.status).toBe(200);
  return generationRecordSchema.parse(await response.json());
}

const costOf = (kind: UpstreamKind, prompt: number, completion: number) =>
  prompt * KIND_PROVIDERS[kind].promptNanos + completion * KIND_PROVIDERS[kind].completionNanos;

const CASES = UPSTREAM_KINDS.flatMap((kind) =>
  PUBLIC_FORMS.flatMap((form) => [false, true].map((stream) => ({ kind, form, stream }))),
);

describe('a final count the gateway cannot bill, after a placeholder', () => {
  const BAD_COUNTS: Array<{ what: string; final: FinalCount }> = [
    { what: 'missing', final: 'missing' },
    { what: 'negative', final: -5_000 },
    { what: 'fractional', final: 0.5 },
    { what: 'absurd', final: 1e15 },
    { what: 'a string', final: '300' },
  ];

  it.each(CASES)(
    '$kind upstream, $form form, streamed: $stream: the delivered text is counted, and the record says so',
    async ({ kind, form, stream }) => {
      const completion = countTextTokens(TEXT);
      expect(completion).toBeGreaterThan(300);
      for (const { what, final } of BAD_COUNTS) {
        const sent = await ask(kind, form, stream, 1_000, hostileReply(kind, stream, final));
        expect(sent.status, what).toBe(200);
        const answer = await sent.answer();
        expect(answer.text, what).toBe(TEXT);
        const record = await recordOf(sent.cfRay);
        expect(record, what).toMatchObject({
          outcome: 'completed',
          usage_estimated: true,
          charge_capped: false,
          prompt_tokens: PROMPT,
          completion_tokens: completion,
        });
        expect(toNanos(record!.cost_usd), what).toBe(costOf(kind, PROMPT, completion));
      }
    },
  );
});

describe('more text than max_tokens', () => {
  it.each(CASES)(
    '$kind upstream, $form form, streamed: $stream: all of it is passed on, 50 tokens are charged, and the record says the charge was capped',
    async ({ kind, form, stream }) => {
      for (const { what, final, estimated } of [
        { what: 'reported as 2e9 tokens', final: 2_000_000_000, estimated: false },
        { what: 'with no count', final: 'missing', estimated: true },
      ]) {
        const sent = await ask(kind, form, stream, 50, hostileReply(kind, stream, final));
        expect(sent.status, what).toBe(200);
        const answer = await sent.answer();
        // Passed on whole: the gateway's count may disagree with the upstream's tokenizer.
        expect(answer.text, what).toBe(TEXT);
        const record = await recordOf(sent.cfRay);
        expect(record, what).toMatchObject({
          usage_estimated: estimated,
          charge_capped: true,
          prompt_tokens: PROMPT,
          completion_tokens: 50,
        });
        expect(toNanos(record!.cost_usd), what).toBe(costOf(kind, PROMPT, 50));
      }
    },
  );
});

describe('an error inside the answer that names addresses, paths and keys', () => {
  /** The upstream's error, in its kind's shape: a message full of secrets, and a `host` field. */
  function hostileError(kind: UpstreamKind): Record<string, unknown> {
    const upstreamKey = upstreams.upstreamKeys[KIND_PROVIDERS[kind].provider]!;
    const message =
      `Backend for ${upstreamKey} failed at http://10.20.30.40:8080/internal/admin?session=${upstreamKey.slice(0, 12)} ` +
      `while reading /srv/gateway/conf/upstream.env (backend 10.20.30.41:9000, key ${upstreamKey.slice(0, 14)}… ` +
      `or ${upstreamKey.slice(0, 9)}...${upstreamKey.slice(-4)}, masked ${upstreamKey.slice(0, 8)}****${upstreamKey.slice(-4)})`;
    switch (kind) {
      case 'openai-compatible':
        return { message, type: 'server_error', code: 500, host: HOST };
      case 'anthropic':
        return { type: 'api_error', message, host: HOST };
      case 'gemini':
        return { code: 503, message, status: 'UNAVAILABLE', host: HOST };
    }
  }

  const expectClean = (kind: UpstreamKind, bytes: string) => {
    const upstreamKey = upstreams.upstreamKeys[KIND_PROVIDERS[kind].provider]!;
    // Any prefix of the key from 8 characters on contains its first 8.
    for (const secret of [
      upstreamKey,
      upstreamKey.slice(0, 8),
      upstreamKey.slice(-12),
      '10.20.30.4',
      '/internal/admin',
      '/srv/',
      'upstream.env',
      HOST,
      'corp.internal',
      '****',
    ]) {
      expect(bytes).not.toContain(secret);
      expect(log.text()).not.toContain(secret);
    }
  };

  it.each(CASES.filter(({ stream }) => stream))(
    '$kind upstream, $form form, mid-stream: cleaned for the client, and the delivered text charged',
    async ({ kind, form }) => {
      const sent = await ask(kind, form, true, 1_000, {
        events: hostileStream(kind, BEFORE_ERROR, { error: hostileError(kind) }),
      });
      expect(sent.status).toBe(200);
      const answer = await sent.answer();
      expect(answer.text).toBe(BEFORE_ERROR.join(''));
      expect(answer.streamError).not.toBeNull();
      expect(sent.body).toContain('[address]');
      expect(sent.body).toContain('[path]');
      expectClean(kind, sent.bytes);
      const record = await recordOf(sent.cfRay);
      const completion = countTextTokens(BEFORE_ERROR.join(''));
      // The prompt is the count the upstream gave at the start; the text is the gateway's count.
      expect(record).toMatchObject({
        outcome: 'ended_early',
        usage_estimated: true,
        charge_capped: false,
        prompt_tokens: PROMPT,
        completion_tokens: completion,
      });
      expect(toNanos(record!.cost_usd)).toBe(costOf(kind, PROMPT, completion));
    },
  );

  it.each(
    CASES.filter(({ stream }) => !stream).flatMap((each) => [
      { ...each, status: 200 },
      { ...each, status: 500 },
    ]),
  )(
    '$kind upstream, $form form, plain, HTTP $status: cleaned for the client, and nothing charged',
    async ({ kind, form, status }) => {
      const error = hostileError(kind);
      const body = kind === 'anthropic' ? { type: 'error', error } : { error };
      const sent = await ask(kind, form, false, 1_000, { status, body });
      expect(sent.status).toBeGreaterThanOrEqual(400);
      expectClean(kind, sent.bytes);
      expect(await recordOf(sent.cfRay)).toBeUndefined();
    },
  );
});
