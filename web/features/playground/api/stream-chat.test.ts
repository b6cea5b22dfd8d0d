import type { ChatRequest } from '../../../../contract/workbench-api';
import { ApiRequestError } from '../../../lib/api-client';
import { applyChunk, emptyReply } from './reply-accumulator';
import { streamChat } from './stream-chat';

const body: ChatRequest = {
  profile: 'demo-account',
  request: {
    model: 'sim/chat-standard',
    messages: [{ role: 'user', content: 'Hi' }],
    stream: true,
  },
};

function chunk(
  delta: Record<string, unknown>,
  finishReason: string | null = null,
  usage?: Record<string, number>,
) {
  return JSON.stringify({
    id: 'gen-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'sim/chat-standard',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...(usage ? { usage } : {}),
  });
}

function streamResponse(parts: string[]): Response {
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of parts) controller.enqueue(encoder.encode(part));
      controller.close();
    },
  });
  return new Response(stream, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
}

const meta = { upstream_status: 200, cf_ray: '0123456789abcdef-AMS', ttfb_ms: 12, total_ms: null };

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('streamChat', () => {
  it('reads meta, chunks, [DONE] and the final meta, and accumulates the reply', async () => {
    const fetchMock = vi.fn(async () =>
      streamResponse([
        `event: meta\ndata: ${JSON.stringify(meta)}\n\n`,
        `data: ${chunk({ role: 'assistant', content: 'Hel' })}\n\n`,
        `data: ${chunk({ content: 'lo' })}\n\ndata: ${chunk({}, 'stop', { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5, cost: 0.00001 })}\n\n`,
        'data: [DONE]\n\n',
        `event: done\ndata: ${JSON.stringify({ ...meta, total_ms: 40 })}\n\n`,
      ]),
    );
    vi.stubGlobal('fetch', fetchMock);
    let reply = emptyReply;
    const rawEvents: string[] = [];
    const outcome = await streamChat(body, new AbortController().signal, {
      onChunk: (received) => {
        reply = applyChunk(reply, received);
      },
      onRawEvent: (event) => rawEvents.push(event.event),
    });
    expect(outcome.sawDone).toBe(true);
    expect(outcome.meta?.cf_ray).toBe('0123456789abcdef-AMS');
    expect(outcome.finalMeta?.total_ms).toBe(40);
    expect(outcome.streamError).toBeNull();
    expect(reply.text).toBe('Hello');
    expect(reply.finishReason).toBe('stop');
    expect(reply.usage).toEqual({
      prompt_tokens: 3,
      completion_tokens: 2,
      total_tokens: 5,
      cost: 0.00001,
    });
    expect(rawEvents).toEqual(['meta', 'message', 'message', 'message', 'message', 'done']);
    const [, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(JSON.parse(String(init.body))).toEqual(body);
    expect(new Headers(init.headers).get('Content-Type')).toBe('application/json');
  });

  it('throws the API error, with advice and cf-ray, when the BFF refuses before the stream', async () => {
    vi.stubGlobal('fetch', async () =>
      Response.json(
        {
          error: {
            message: 'Key depleted',
            stage: 'admission',
            upstream_status: 402,
            cf_ray: 'fedcba9876543210-AMS',
            advice: 'Top up.',
          },
        },
        { status: 402 },
      ),
    );
    const failure = streamChat(body, new AbortController().signal);
    await expect(failure).rejects.toBeInstanceOf(ApiRequestError);
    await expect(failure).rejects.toMatchObject({
      status: 402,
      upstreamStatus: 402,
      cfRay: 'fedcba9876543210-AMS',
      stage: 'admission',
    });
  });

  it('turns an error object inside the stream into a stream error instead of throwing', async () => {
    vi.stubGlobal('fetch', async () =>
      streamResponse([
        `event: meta\ndata: ${JSON.stringify(meta)}\n\n`,
        `data: ${JSON.stringify({ error: 'The provider failed mid-answer', type: 'provider_error', stage: 'provider' })}\n\n`,
      ]),
    );
    const outcome = await streamChat(body, new AbortController().signal);
    expect(outcome.sawDone).toBe(false);
    expect(outcome.streamError).toEqual({
      message: 'The provider failed mid-answer',
      stage: 'provider',
      type: 'provider_error',
    });
  });

  it('rejects with an AbortError when stopped', async () => {
    vi.stubGlobal(
      'fetch',
      (_url: string, init: RequestInit) =>
        new Promise((_resolve, reject) => {
          init.signal?.addEventListener('abort', () =>
            reject(new DOMException('aborted', 'AbortError')),
          );
        }),
    );
    const controller = new AbortController();
    const pending = streamChat(body, controller.signal);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('applyChunk', () => {
  it('keeps the reasoning apart from the answer, with its token count', () => {
    const base = { id: 'gen', object: 'chat.completion.chunk' as const, created: 1, model: 'm' };
    let reply = applyChunk(emptyReply, {
      ...base,
      choices: [{ index: 0, delta: { reasoning: 'Let me think.' }, finish_reason: null }],
    });
    expect(reply.started).toBe(true);
    reply = applyChunk(reply, {
      ...base,
      choices: [{ index: 0, delta: { content: 'Yes.' }, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: 3,
        completion_tokens: 9,
        total_tokens: 12,
        completion_tokens_details: { reasoning_tokens: 7 },
      },
    });
    expect(reply.reasoning).toBe('Let me think.');
    expect(reply.text).toBe('Yes.');
    expect(reply.usage?.reasoning_tokens).toBe(7);
  });

  it('joins tool-call fragments by index', () => {
    const base = { id: 'gen', object: 'chat.completion.chunk' as const, created: 1, model: 'm' };
    let reply = applyChunk(emptyReply, {
      ...base,
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              {
                index: 0,
                id: 'call_1',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"ci' },
              },
            ],
          },
          finish_reason: null,
        },
      ],
    });
    reply = applyChunk(reply, {
      ...base,
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, function: { arguments: 'ty":"Oslo"}' } }] },
          finish_reason: 'tool_calls',
        },
      ],
    });
    expect(reply.toolCalls).toEqual([
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
      },
    ]);
    expect(reply.finishReason).toBe('tool_calls');
    expect(reply.started).toBe(true);
  });
});
