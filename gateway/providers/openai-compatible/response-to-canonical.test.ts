/**
 * A whole chat completion (`vendors/openai/__fixtures__/openai-*-response.json`, shaped as OpenAI's reference
 * shows them) → canonical events, and the finish reasons behind them.
 */
import { UpstreamError } from '../upstream-error';
import { mapFinishReason } from './finish-reason-to-canonical';
import { openAiCompatibleAdapter } from './index';
import { vendorFixtureText } from '../../vendors/fixtures';

const json = (name: string) => JSON.parse(vendorFixtureText('openai', name));

const fromResponse = (body: unknown) => openAiCompatibleAdapter.fromResponse(body, 'openai');

describe('fromResponse', () => {
  it('turns a text answer into its text, then finish with the usage', () => {
    const body = json('openai-text-response.json');

    expect(fromResponse(body)).toEqual([
      { type: 'text-delta', text: body.choices[0].message.content },
      {
        type: 'finish',
        finishReason: 'stop',
        rawFinishReason: 'stop',
        stopSequence: null,
        usage: {
          promptTokens: body.usage.prompt_tokens,
          completionTokens: body.usage.completion_tokens,
        },
      },
    ]);
  });

  it('turns tool calls into whole tool-call events, in order, and no empty text', () => {
    const body = json('openai-tool-call-response.json');
    const calls = body.choices[0].message.tool_calls as Array<{
      id: string;
      function: { name: string; arguments: string };
    }>;

    const events = fromResponse(body);

    expect(events.map((event) => event.type)).toEqual(['tool-call', 'tool-call', 'finish']);
    expect(events.slice(0, 2)).toEqual(
      calls.map((call) => ({
        type: 'tool-call',
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      })),
    );
    expect(events[2]).toMatchObject({ finishReason: 'tool_calls', rawFinishReason: 'tool_calls' });
  });

  it('reads the cache reads and, as OpenRouter reports them, the cache writes', () => {
    const body = {
      ...json('openai-text-response.json'),
      usage: {
        prompt_tokens: 4700,
        completion_tokens: 120,
        prompt_tokens_details: { cached_tokens: 3000, cache_write_tokens: 1500 },
      },
    };
    expect(fromResponse(body).at(-1)).toMatchObject({
      usage: {
        promptTokens: 4700,
        completionTokens: 120,
        cacheReadTokens: 3000,
        cacheWriteTokens: 1500,
      },
    });
  });

  it('reports no usage as null, not as zero', () => {
    const { usage: _usage, ...body } = json('openai-text-response.json');

    expect(fromResponse(body).at(-1)).toMatchObject({ type: 'finish', usage: null });
  });

  it.each([
    ['an error body', json('openai-error-model-not-found.json')],
    ['no choices', { ...json('openai-text-response.json'), choices: [] }],
    ['a choice without a message', { choices: [{ index: 0, finish_reason: 'stop' }] }],
    ['not an object', 'Hello'],
  ])('refuses %s as malformed', (_case, body) => {
    expect(() => fromResponse(body)).toThrow(UpstreamError);
    try {
      fromResponse(body);
    } catch (error) {
      expect(error).toMatchObject({ failure: 'malformed', providerId: 'openai' });
    }
  });
});

describe('mapFinishReason', () => {
  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['tool_calls', 'tool_calls'],
    ['function_call', 'tool_calls'],
    ['content_filter', 'content_filter'],
    ['error', 'error'],
    ['eos_token', 'stop'],
  ])('maps %s to %s and keeps the raw word', (raw, unified) => {
    expect(mapFinishReason(raw)).toEqual({ unified, raw });
  });

  it('counts no reason as a stop, with no raw word', () => {
    expect(mapFinishReason(null)).toEqual({ unified: 'stop', raw: null });
  });
});

describe('reasoning from an openai-compatible server', () => {
  it.each(['reasoning_content', 'reasoning'])(
    'reads %s before the text, and the reasoning tokens of the completion',
    (field) => {
      const events = fromResponse({
        choices: [
          {
            message: { role: 'assistant', content: 'Sunny.', [field]: 'Check the sky.' },
            finish_reason: 'stop',
          },
        ],
        usage: {
          prompt_tokens: 9,
          completion_tokens: 14,
          completion_tokens_details: { reasoning_tokens: 10 },
        },
      });
      expect(events).toEqual([
        { type: 'reasoning-delta', text: 'Check the sky.' },
        { type: 'text-delta', text: 'Sunny.' },
        {
          type: 'finish',
          finishReason: 'stop',
          rawFinishReason: 'stop',
          stopSequence: null,
          usage: { promptTokens: 9, completionTokens: 14, reasoningTokens: 10 },
        },
      ]);
    },
  );
});
