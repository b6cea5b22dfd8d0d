/**
 * Prompt caching across the translation: cache breakpoints (`cache_control`, with their `ttl`)
 * reach an Anthropic upstream from the chat-completions form, OpenAI's `prompt_cache_key` reaches
 * an OpenAI-compatible one from the Responses form, and a kind that cannot take either drops it
 * and says so.
 */
import type { CanonicalRequest } from '../canonical/model';
import { emptyReport } from '../canonical/translation';
import { GatewayError } from '../errors';
import { anthropicAdapter } from '../providers/anthropic';
import { testConfig, testRoute } from '../../testing/providers/anthropic-kit';
import { geminiAdapter } from '../providers/gemini';
import { openAiCompatibleAdapter } from '../providers/openai-compatible';
import type { UpstreamKind } from '../providers/upstream/provider-config';
import { claudeCodeSession, sessionRequest } from '../../testing/upstreams/agent-session';
import { UPSTREAM_KINDS } from '../../testing/upstreams/upstream-kit';
import { messagesForm } from './anthropic';
import { geminiForm } from './gemini';
import { chatCompletionsForm } from './openai';
import type { PublicForm } from './public-form';
import { responsesForm } from './responses';

const ADAPTERS = {
  anthropic: anthropicAdapter,
  'openai-compatible': openAiCompatibleAdapter,
  gemini: geminiAdapter,
} as const;

/** The body `kind` is sent for a canonical request, with the report of what it dropped. */
function sent(kind: UpstreamKind, request: CanonicalRequest) {
  const withReport = { ...request, translation: emptyReport() };
  const config = testConfig({ id: `test-${kind}`, kind });
  const body = ADAPTERS[kind].buildCall(withReport, testRoute, config).body as Record<
    string,
    unknown
  >;
  return { body, report: withReport.translation };
}

const ephemeral = { type: 'ephemeral' } as const;

const toCanonical = (form: PublicForm, body: unknown) =>
  form.toCanonical(body, { url: new URL('http://127.0.0.1/v1') });

/** OpenRouter's spelling: breakpoints on text parts of system, user and tool messages. */
const chatWithBreakpoints = {
  model: 'anthropic/claude-sonnet-4.5',
  max_tokens: 512,
  cache_control: ephemeral,
  messages: [
    {
      role: 'system',
      content: [
        { type: 'text', text: 'You are a careful reviewer.' },
        { type: 'text', text: 'HANDBOOK…', cache_control: { type: 'ephemeral', ttl: '1h' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Read the file.', cache_control: ephemeral },
        { type: 'image_url', image_url: 'https://example.com/a.png', cache_control: ephemeral },
      ],
    },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } },
      ],
    },
    {
      role: 'tool',
      tool_call_id: 'call_1',
      content: [{ type: 'text', text: 'contents of a', cache_control: ephemeral }],
    },
  ],
  tools: [{ type: 'function', function: { name: 'read', parameters: { type: 'object' } } }],
};

describe('cache breakpoints from the chat-completions form', () => {
  it('reach an Anthropic upstream on the blocks the client marked, the system text in blocks', () => {
    const { body, report } = sent(
      'anthropic',
      toCanonical(chatCompletionsForm, chatWithBreakpoints),
    );
    expect(body.system).toEqual([
      { type: 'text', text: 'You are a careful reviewer.' },
      { type: 'text', text: 'HANDBOOK…', cache_control: { type: 'ephemeral', ttl: '1h' } },
    ]);
    const messages = body.messages as Array<{ role: string; content: unknown[] }>;
    expect(messages[0]!.content[0]).toEqual({
      type: 'text',
      text: 'Read the file.',
      cache_control: ephemeral,
    });
    expect(messages[2]!.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'call_1',
        content: 'contents of a',
        cache_control: ephemeral,
      },
    ]);
    expect(body.cache_control).toEqual(ephemeral);
    // The image's breakpoint has no place in the canonical request: dropped, and said.
    expect(report.dropped).toEqual(['messages.1.content.1.cache_control']);
  });

  it('keeps the system a string where no block of it carries a breakpoint', () => {
    const request = toCanonical(chatCompletionsForm, {
      ...chatWithBreakpoints,
      messages: [
        { role: 'system', content: 'Be brief.' },
        ...chatWithBreakpoints.messages.slice(1),
      ],
    });
    expect(sent('anthropic', request).body.system).toBe('Be brief.');
  });

  it('are dropped and reported toward Gemini, and refused there in strict mode', () => {
    const { body, report } = sent('gemini', toCanonical(chatCompletionsForm, chatWithBreakpoints));
    expect(JSON.stringify(body)).not.toContain('cache_control');
    expect(report.dropped).toEqual([
      'messages.1.content.1.cache_control',
      'cache_control',
      'messages.0.content.1.cache_control',
      'messages.1.content.0.cache_control',
      'messages.3.content.0.cache_control',
    ]);
    const strict = toCanonical(chatCompletionsForm, {
      ...chatWithBreakpoints,
      provider: { require_parameters: true },
    });
    expect(() => sent('gemini', strict)).toThrow(GatewayError);
  });

  it('go to an OpenAI-compatible upstream as sent, the body passing through', () => {
    const { body, report } = sent(
      'openai-compatible',
      toCanonical(chatCompletionsForm, chatWithBreakpoints),
    );
    expect(body.messages).toEqual(chatWithBreakpoints.messages);
    expect(body.cache_control).toEqual(ephemeral);
    expect(report.dropped).toEqual([]);
  });

  it('refuse a ttl the vendor does not know, naming the field', () => {
    expect(() =>
      toCanonical(chatCompletionsForm, {
        ...chatWithBreakpoints,
        cache_control: { type: 'ephemeral', ttl: '2h' },
      }),
    ).toThrow(/cache_control/);
  });
});

describe("OpenAI's prompt_cache_key", () => {
  const responsesBody = {
    model: 'openai/gpt-5',
    input: 'Summarise the repository.',
    prompt_cache_key: 'session-7f3a',
  };

  it('reaches an OpenAI-compatible upstream from the Responses form', () => {
    const { body, report } = sent('openai-compatible', toCanonical(responsesForm, responsesBody));
    expect(body.prompt_cache_key).toBe('session-7f3a');
    expect(report.dropped).toEqual([]);
  });

  it('is dropped and reported toward Anthropic and Gemini, from either form that has it', () => {
    for (const kind of ['anthropic', 'gemini'] as const) {
      const fromResponses = sent(kind, toCanonical(responsesForm, responsesBody));
      expect(fromResponses.body).not.toHaveProperty('prompt_cache_key');
      expect(fromResponses.report.dropped).toEqual(['prompt_cache_key']);
      const fromChat = sent(
        kind,
        toCanonical(chatCompletionsForm, {
          model: 'openai/gpt-5',
          messages: [{ role: 'user', content: 'Hi' }],
          prompt_cache_key: 'session-7f3a',
        }),
      );
      expect(fromChat.report.dropped).toEqual(['prompt_cache_key']);
    }
  });
});

describe('the same conversation prefix, turn after turn', () => {
  const FORMS: PublicForm[] = [chatCompletionsForm, messagesForm, geminiForm, responsesForm];
  const session = claudeCodeSession(12);
  /** Each vendor's conversation array; the rest of the body is its frame (system, tools…). */
  const CONVERSATION: Record<UpstreamKind, string> = {
    anthropic: 'messages',
    'openai-compatible': 'messages',
    gemini: 'contents',
  };

  const upstreamBody = (form: PublicForm, kind: UpstreamKind, turn: number) => {
    const body = sessionRequest(form.name, session, turn, {
      model: 'anthropic/claude-sonnet-4.5',
      breakpoints: false,
    });
    const request = form.toCanonical(body, {
      model: 'anthropic/claude-sonnet-4.5',
      stream: false,
      url: new URL('http://127.0.0.1/v1'),
    });
    return sent(kind, request).body;
  };

  for (const form of FORMS) {
    for (const kind of UPSTREAM_KINDS) {
      it(`goes upstream in the same bytes: ${form.name} → ${kind}`, () => {
        const short = upstreamBody(form, kind, 4);
        const long = upstreamBody(form, kind, 11);
        const field = CONVERSATION[kind];
        const shortTurns = (short[field] as unknown[]).map((turn) => JSON.stringify(turn));
        const longTurns = (long[field] as unknown[]).map((turn) => JSON.stringify(turn));
        expect(longTurns.length).toBeGreaterThan(shortTurns.length);
        expect(longTurns.slice(0, shortTurns.length)).toEqual(shortTurns);
        // Everything but the conversation (system, tools, bounds) is the same text, key for key
        // in the same order: nothing per request (an id, a time) rides along.
        const frame = (body: Record<string, unknown>) =>
          JSON.stringify(Object.entries(body).filter(([key]) => key !== field));
        expect(frame(long)).toBe(frame(short));
        // And converting the same request twice gives the same bytes.
        expect(JSON.stringify(upstreamBody(form, kind, 11))).toBe(JSON.stringify(long));
      });
    }
  }
});
