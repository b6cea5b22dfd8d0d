/**
 * Reasoning and structured outputs over real HTTP, every form to every provider kind: what each
 * form's answer shows (reasoning in its own shape, signatures sealed for their provider, reasoning
 * tokens in its usage and charged as completion), what each upstream is sent (its own reasoning
 * and response-format fields; a signature only back to the provider that made it), plain and
 * streamed. Fake upstreams on loopback answer; the simulated reasoner answers with no network.
 */
import { generationRecordSchema } from '../../contract/gateway';
import type { PublicFormName } from '../canonical/model';
import { openReasoning } from '../canonical/reasoning-signature';
import type { UpstreamKind } from '../providers/upstream/provider-config';
import { startFakeUpstream, type FakeUpstream } from '../../testing/upstreams/fake-upstream';
import {
  callForm,
  parseSse,
  PUBLIC_FORMS as ALL_FORMS,
} from '../../testing/upstreams/public-forms';

// The Responses form's reasoning and formats are tested on their own (responses.integration.test.ts).
type Form = Exclude<PublicFormName, 'responses'>;
const PUBLIC_FORMS = ALL_FORMS.filter((form): form is Form => form !== 'responses');
import { fixtureEvents, fixtureJson, providersFileFor } from '../../testing/upstreams/upstream-kit';
import {
  getWithKey,
  startTestGateway,
  toNanos,
  type TestGateway,
} from '../../testing/gateway-support';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Per kind: a provider id, a model that reasons and one that does not. */
const KINDS: Record<UpstreamKind, { provider: string; think: string; plain: string }> = {
  'openai-compatible': { provider: 'oai', think: 'test/oai-think', plain: 'test/oai-plain' },
  anthropic: { provider: 'ant', think: 'test/ant-think', plain: 'test/ant-plain' },
  gemini: { provider: 'gem', think: 'test/gem-think', plain: 'test/gem-plain' },
};
const PRICES = { prompt: 100, completion: 2_000 };
const BASE_PARAMETERS = ['max_tokens', 'temperature', 'tools', 'tool_choice', 'response_format'];

let gateway: TestGateway;
let key: string;
const fakes = {} as Record<UpstreamKind, FakeUpstream>;

beforeAll(async () => {
  for (const kind of Object.keys(KINDS) as UpstreamKind[]) fakes[kind] = await startFakeUpstream();
  const setup = providersFileFor(
    (Object.keys(KINDS) as UpstreamKind[]).map((kind) => ({
      id: KINDS[kind].provider,
      kind,
      url: fakes[kind].url,
      retry: { max_attempts: 1 },
      models: [
        { id: KINDS[kind].think, reasoning: true },
        { id: KINDS[kind].plain, reasoning: false },
      ].map(({ id, reasoning }) => ({
        id,
        upstreamModel: `${id.slice(5)}-upstream`,
        prompt: (PRICES.prompt / 1e9).toFixed(9),
        completion: (PRICES.completion / 1e9).toFixed(9),
        maxCompletionTokens: 64_000,
        supportedParameters: reasoning ? [...BASE_PARAMETERS, 'reasoning'] : BASE_PARAMETERS,
      })),
    })),
    { includeSimulatedModels: true },
  );
  gateway = await startTestGateway({ providers: setup.providers });
  key = (await gateway.createKey({ kind: 'account', limitUsd: 100 })).key;
});
afterAll(async () => {
  await gateway?.stop();
  for (const fake of Object.values(fakes)) await fake?.close();
});

/** A user question in each form, with room to think. */
function question(form: Form, extra: Json = {}, maxTokens = 20_000): Json {
  switch (form) {
    case 'chat_completions':
      return {
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        max_tokens: maxTokens,
        ...extra,
      };
    case 'messages':
      return {
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        max_tokens: maxTokens,
        ...extra,
      };
    case 'gemini':
      return {
        contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }],
        ...extra,
        generationConfig: { maxOutputTokens: maxTokens, ...extra.generationConfig },
      };
  }
}

/** What a form's answer says about reasoning, read the form's own way. */
type Seen = {
  body: Json;
  reasoning: string;
  /** The signatures handed to the client, in order. */
  signatures: string[];
  text: string;
  completion: number;
  reasoningTokens: number | null;
  costUsd: number | null;
  ray: string;
};

async function ask(form: Form, model: string, body: Json, stream: boolean): Promise<Seen> {
  const response = await callForm(form, gateway.url, key, model, body, { stream });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  const ray = response.headers.get('cf-ray')!;
  if (!stream) return { ...readPlain(form, JSON.parse(text) as Json), ray };
  return { ...readStream(form, parseSse(text)), ray };
}

function readPlain(form: Form, body: Json): Omit<Seen, 'ray'> {
  switch (form) {
    case 'chat_completions': {
      const message = body.choices[0].message;
      return {
        body,
        reasoning: message.reasoning ?? '',
        signatures: ((message.reasoning_details ?? []) as Json[]).flatMap((detail) =>
          detail.signature ? [detail.signature] : detail.data ? [detail.data] : [],
        ),
        text: message.content ?? '',
        completion: body.usage.completion_tokens,
        reasoningTokens: body.usage.completion_tokens_details?.reasoning_tokens ?? null,
        costUsd: body.usage.cost,
      };
    }
    case 'messages': {
      const blocks = body.content as Json[];
      return {
        body,
        reasoning: blocks.map((block) => block.thinking ?? '').join(''),
        signatures: blocks.flatMap((block) =>
          block.signature ? [block.signature] : block.data ? [block.data] : [],
        ),
        text: blocks.map((block) => (block.type === 'text' ? block.text : '')).join(''),
        completion: body.usage.output_tokens,
        reasoningTokens: null,
        costUsd: body.usage.cost_usd,
      };
    }
    case 'gemini': {
      const parts = body.candidates[0].content.parts as Json[];
      return {
        body,
        reasoning: parts.map((part) => (part.thought ? part.text : '')).join(''),
        signatures: parts.flatMap((part) =>
          part.thoughtSignature ? [signatureIn(part.thoughtSignature)] : [],
        ),
        text: parts.map((part) => (part.thought ? '' : (part.text ?? ''))).join(''),
        completion:
          body.usageMetadata.candidatesTokenCount + (body.usageMetadata.thoughtsTokenCount ?? 0),
        reasoningTokens: body.usageMetadata.thoughtsTokenCount ?? null,
        costUsd: null,
      };
    }
  }
}

/**
 * The Gemini form carries the whole block in `thoughtSignature` (text and sealed signature, see
 * `sealReasoning`): the sealed signature inside it.
 */
function signatureIn(thoughtSignature: string): string {
  expect(thoughtSignature).toMatch(/^gwr1:/);
  return openReasoning(thoughtSignature)?.signature ?? thoughtSignature;
}

function readStream(
  form: Form,
  events: Array<{ event: string | null; data: string }>,
): Omit<Seen, 'ray'> {
  const chunks = events
    .filter((event) => event.data !== '[DONE]')
    .map((event) => JSON.parse(event.data) as Json);
  const seen: Omit<Seen, 'ray'> = {
    body: { chunks },
    reasoning: '',
    signatures: [],
    text: '',
    completion: 0,
    reasoningTokens: null,
    costUsd: null,
  };
  for (const chunk of chunks) {
    if (form === 'chat_completions') {
      const delta = chunk.choices?.[0]?.delta ?? {};
      seen.reasoning += delta.reasoning ?? '';
      for (const detail of (delta.reasoning_details ?? []) as Json[])
        if (detail.signature) seen.signatures.push(detail.signature);
      seen.text += delta.content ?? '';
      if (chunk.usage) {
        seen.completion = chunk.usage.completion_tokens;
        seen.reasoningTokens = chunk.usage.completion_tokens_details?.reasoning_tokens ?? null;
        seen.costUsd = chunk.usage.cost;
      }
    } else if (form === 'messages') {
      if (chunk.type === 'content_block_start' && chunk.content_block.type === 'redacted_thinking')
        seen.signatures.push(chunk.content_block.data);
      if (chunk.type === 'content_block_delta') {
        if (chunk.delta.type === 'thinking_delta') seen.reasoning += chunk.delta.thinking;
        if (chunk.delta.type === 'signature_delta') seen.signatures.push(chunk.delta.signature);
        if (chunk.delta.type === 'text_delta') seen.text += chunk.delta.text;
      }
      if (chunk.type === 'message_delta') {
        seen.completion = chunk.usage.output_tokens;
        seen.costUsd = chunk.usage.cost_usd;
      }
    } else {
      for (const part of (chunk.candidates?.[0]?.content?.parts ?? []) as Json[]) {
        if (part.thought) seen.reasoning += part.text;
        else seen.text += part.text ?? '';
        if (part.thoughtSignature) seen.signatures.push(signatureIn(part.thoughtSignature));
      }
      if (chunk.usageMetadata) {
        seen.completion =
          chunk.usageMetadata.candidatesTokenCount + (chunk.usageMetadata.thoughtsTokenCount ?? 0);
        seen.reasoningTokens = chunk.usageMetadata.thoughtsTokenCount ?? null;
      }
    }
  }
  return seen;
}

async function record(ray: string) {
  const response = await getWithKey(`${gateway.url}/v1/generation?id=${ray}`, key);
  expect(response.status).toBe(200);
  return generationRecordSchema.parse(await response.json());
}

const sent = (kind: UpstreamKind) => fakes[kind].requests.at(-1)!.body as Json;

const CASES = PUBLIC_FORMS.flatMap((form) => [false, true].map((stream) => ({ form, stream })));

describe('the simulated reasoner, in every form', () => {
  it.each(CASES)(
    '$form (stream $stream) shows its reasoning, sealed signature and tokens, charged as completion',
    async ({ form, stream }) => {
      const seen = await ask(form, 'sim/reasoner-large', question(form, {}, 2_000), stream);
      expect(seen.text.length).toBeGreaterThan(0);
      expect(seen.reasoning).toMatch(/^The question is about Paris/);
      expect(seen.signatures).toEqual([expect.stringMatching(/^gw1:simulated:sim-[0-9a-f]{8}$/)]);
      const charged = await record(seen.ray);
      expect(seen.completion).toBe(charged.completion_tokens);
      expect(toNanos(charged.cost_usd)).toBe(
        charged.prompt_tokens * 15_000 + charged.completion_tokens * 75_000,
      );
      if (form !== 'messages') {
        // Its own count of reasoning tokens, a part of the completion (the Messages form has none).
        expect(seen.reasoningTokens).toBeGreaterThan(0);
        expect(seen.reasoningTokens!).toBeLessThan(seen.completion);
      }
    },
  );

  it('answers a json_schema request with JSON valid for the schema, in every form', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, celsius: { type: 'number' } },
      required: ['city', 'celsius'],
      additionalProperties: false,
    };
    const formats: Record<Form, Json> = {
      chat_completions: {
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'weather', schema, strict: true },
        },
      },
      messages: { output_config: { format: { type: 'json_schema', schema } } },
      gemini: {
        generationConfig: { responseMimeType: 'application/json', responseJsonSchema: schema },
      },
    };
    for (const form of PUBLIC_FORMS) {
      const seen = await ask(
        form,
        'sim/chat-standard',
        question(form, formats[form], 2_000),
        false,
      );
      expect(JSON.parse(seen.text)).toEqual({ city: 'Paris', celsius: 42 });
    }
  });
});

describe('reasoning round trips with signatures', () => {
  /** Anthropic answers with a thinking block and a tool call (the recorded answer). */
  const anthropicThinks = () =>
    fakes.anthropic.reply({ body: fixtureJson('anthropic', 'anthropic-tool-use-response.json') });
  const ANTHROPIC_SIGNATURE = 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds';
  /** Gemini answers with a thought and a call carrying its thought signature. */
  const geminiThinks = () =>
    fakes.gemini.reply({
      body: {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [
                { text: 'Paris needs a lookup.', thought: true },
                {
                  functionCall: { name: 'get_weather', args: { location: 'Paris' } },
                  thoughtSignature: 'R2VtaW5pU2ln',
                },
              ],
            },
            finishReason: 'STOP',
          },
        ],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 7 },
      },
    });
  const tool = {
    name: 'get_weather',
    description: 'Weather',
    schema: {
      type: 'object',
      properties: { location: { type: 'string' } },
      required: ['location'],
    },
  };
  const toolsIn: Record<Form, Json> = {
    chat_completions: {
      tools: [
        {
          type: 'function',
          function: { name: tool.name, description: tool.description, parameters: tool.schema },
        },
      ],
    },
    messages: {
      tools: [{ name: tool.name, description: tool.description, input_schema: tool.schema }],
    },
    gemini: {
      tools: [
        {
          functionDeclarations: [
            { name: tool.name, description: tool.description, parametersJsonSchema: tool.schema },
          ],
        },
      ],
    },
  };

  /** The next turn, in the form's shape: the assistant turn as the client got it, then the result. */
  function nextTurn(form: Form, answer: Json): Json {
    switch (form) {
      case 'messages': {
        const use = (answer.content as Json[]).find((block) => block.type === 'tool_use')!;
        return {
          ...toolsIn.messages,
          max_tokens: 20_000,
          messages: [
            { role: 'user', content: 'Weather in Paris?' },
            { role: 'assistant', content: answer.content },
            {
              role: 'user',
              content: [{ type: 'tool_result', tool_use_id: use.id, content: '18 C' }],
            },
          ],
        };
      }
      case 'gemini':
        return {
          ...toolsIn.gemini,
          contents: [
            { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
            answer.candidates[0].content,
            {
              role: 'user',
              parts: [{ functionResponse: { name: 'get_weather', response: { celsius: 18 } } }],
            },
          ],
        };
      case 'chat_completions': {
        const message = answer.choices[0].message;
        return {
          ...toolsIn.chat_completions,
          max_tokens: 20_000,
          messages: [
            { role: 'user', content: 'Weather in Paris?' },
            message,
            { role: 'tool', tool_call_id: message.tool_calls[0].id, content: '18 C' },
          ],
        };
      }
    }
  }

  const anthropicFinal = { body: fixtureJson('anthropic', 'anthropic-text-response.json') };
  const geminiFinal = { body: fixtureJson('gemini', 'gemini-text-response.json') };

  it.each(['messages', 'gemini', 'chat_completions'] as const)(
    'an Anthropic signature handed out on the %s form goes back to Anthropic opened',
    async (form) => {
      anthropicThinks();
      const first = await ask(form, KINDS.anthropic.think, question(form, toolsIn[form]), false);
      expect(first.signatures).toEqual([`gw1:ant:${ANTHROPIC_SIGNATURE}`]);
      fakes.anthropic.reply(anthropicFinal);
      await ask(form, KINDS.anthropic.think, nextTurn(form, first.body), false);
      const assistant = (sent('anthropic').messages as Json[])[1]!;
      expect(assistant.role).toBe('assistant');
      expect(assistant.content[0]).toEqual({
        type: 'thinking',
        thinking: 'The user wants the weather in San Francisco; get_weather takes a location.',
        signature: ANTHROPIC_SIGNATURE,
      });
    },
  );

  it.each(['messages', 'gemini', 'chat_completions'] as const)(
    'a Gemini signature handed out on the %s form goes back to Gemini opened, on its call',
    async (form) => {
      geminiThinks();
      const first = await ask(form, KINDS.gemini.think, question(form, toolsIn[form]), false);
      expect(first.reasoning).toBe('Paris needs a lookup.');
      expect(first.signatures).toEqual(['gw1:gem:R2VtaW5pU2ln']);
      fakes.gemini.reply(geminiFinal);
      await ask(form, KINDS.gemini.think, nextTurn(form, first.body), false);
      const model = (sent('gemini').contents as Json[]).find(
        (content) => content.role === 'model',
      )!;
      const call = (model.parts as Json[]).find((part) => part.functionCall)!;
      // The vendor's own signature, not the stand-in for history written elsewhere.
      expect(call.thoughtSignature).toBe('R2VtaW5pU2ln');
      expect(JSON.stringify(sent('gemini'))).not.toContain('gw1:');
    },
  );

  it('a signature never reaches a provider that did not make it', async () => {
    // Made by Anthropic, sent on to Gemini: the Gemini upstream gets the stand-in, not the signature.
    anthropicThinks();
    const first = await ask(
      'messages',
      KINDS.anthropic.think,
      question('messages', toolsIn.messages),
      false,
    );
    fakes.gemini.reply(geminiFinal);
    await ask('messages', KINDS.gemini.think, nextTurn('messages', first.body), false);
    const body = JSON.stringify(sent('gemini'));
    expect(body).not.toContain(ANTHROPIC_SIGNATURE);
    expect(body).toContain('skip_thought_signature_validator');
    // Made by Gemini, sent on to Anthropic: no thinking block at all.
    geminiThinks();
    const second = await ask(
      'gemini',
      KINDS.gemini.think,
      question('gemini', toolsIn.gemini),
      false,
    );
    fakes.anthropic.reply(anthropicFinal);
    await ask('gemini', KINDS.anthropic.think, nextTurn('gemini', second.body), false);
    const toAnthropic = JSON.stringify(sent('anthropic'));
    expect(toAnthropic).not.toContain('R2VtaW5pU2ln');
    expect(toAnthropic).not.toContain('"thinking"');
    // A signature the gateway did not seal (made elsewhere) goes nowhere, even on the same form.
    fakes.anthropic.reply(anthropicFinal);
    const forged = nextTurn('messages', first.body);
    forged.messages[1].content[0].signature = ANTHROPIC_SIGNATURE;
    await ask('messages', KINDS.anthropic.think, forged, false);
    expect(
      sent('anthropic').messages[1].content.some((block: Json) => block.type === 'thinking'),
    ).toBe(false);
  });

  it.each(['messages', 'gemini', 'chat_completions'] as const)(
    'a streamed Anthropic thinking block reaches the %s form with its sealed signature',
    async (form) => {
      fakes.anthropic.reply({
        events: fixtureEvents('anthropic', 'anthropic-thinking-stream.chunks.txt'),
      });
      const seen = await ask(form, KINDS.anthropic.think, question(form), true);
      expect(seen.reasoning).toBe(
        'Let me solve this step by step:\n\n1. First break down 27 * 453\n2. 453 = 400 + 50 + 3',
      );
      expect(seen.signatures).toEqual([`gw1:ant:${ANTHROPIC_SIGNATURE}`]);
      expect(seen.text).toBe('27 * 453 = 12,231');
    },
  );
});

describe('reasoning requests, out to each provider kind', () => {
  const openAiText = () =>
    fakes['openai-compatible'].reply({
      body: fixtureJson('openai-compatible', 'openai-text-response.json'),
    });
  const anthropicText = () =>
    fakes.anthropic.reply({ body: fixtureJson('anthropic', 'anthropic-text-response.json') });
  const geminiText = () =>
    fakes.gemini.reply({ body: fixtureJson('gemini', 'gemini-text-response.json') });

  it('chat reasoning_effort becomes an Anthropic thinking budget below max_tokens, without temperature', async () => {
    anthropicText();
    await ask(
      'chat_completions',
      KINDS.anthropic.think,
      question('chat_completions', { reasoning_effort: 'high', temperature: 0.3 }),
      false,
    );
    expect(sent('anthropic').thinking).toEqual({ type: 'enabled', budget_tokens: 16_384 });
    expect(sent('anthropic').max_tokens).toBeGreaterThan(16_384);
    expect(sent('anthropic')).not.toHaveProperty('temperature');
    // A small max_tokens lowers the budget to fit below it.
    anthropicText();
    await ask(
      'chat_completions',
      KINDS.anthropic.think,
      { ...question('chat_completions', { reasoning_effort: 'high' }), max_tokens: 4_000 },
      false,
    );
    expect(sent('anthropic').thinking).toEqual({ type: 'enabled', budget_tokens: 3_999 });
  });

  it('Gemini thinkingConfig becomes an OpenAI reasoning_effort; Messages thinking a Gemini thinkingConfig', async () => {
    openAiText();
    await ask(
      'gemini',
      KINDS['openai-compatible'].think,
      question('gemini', {
        generationConfig: { thinkingConfig: { thinkingBudget: 2_048, includeThoughts: true } },
      }),
      false,
    );
    expect(sent('openai-compatible').reasoning_effort).toBe('low');
    geminiText();
    await ask(
      'messages',
      KINDS.gemini.think,
      question('messages', { thinking: { type: 'enabled', budget_tokens: 3_000 } }),
      false,
    );
    expect(sent('gemini').generationConfig.thinkingConfig).toEqual({
      includeThoughts: true,
      thinkingBudget: 3_000,
    });
    // OpenRouter's reasoning object, effort and exclude, toward Gemini.
    geminiText();
    await ask(
      'chat_completions',
      KINDS.gemini.think,
      question('chat_completions', { reasoning: { effort: 'minimal', exclude: true } }),
      false,
    );
    expect(sent('gemini').generationConfig.thinkingConfig).toEqual({
      includeThoughts: false,
      thinkingBudget: 1_024,
    });
  });

  it('is not sent to a model that does not list reasoning', async () => {
    anthropicText();
    await ask(
      'chat_completions',
      KINDS.anthropic.plain,
      question('chat_completions', { reasoning_effort: 'high', temperature: 0.3 }),
      false,
    );
    expect(sent('anthropic')).not.toHaveProperty('thinking');
    expect(sent('anthropic').temperature).toBe(0.3);
    geminiText();
    await ask(
      'messages',
      KINDS.gemini.plain,
      question('messages', { thinking: { type: 'enabled', budget_tokens: 3_000 } }),
      false,
    );
    expect(sent('gemini').generationConfig).not.toHaveProperty('thinkingConfig');
    openAiText();
    await ask(
      'gemini',
      KINDS['openai-compatible'].plain,
      question('gemini', { generationConfig: { thinkingConfig: { thinkingBudget: 2_048 } } }),
      false,
    );
    expect(sent('openai-compatible')).not.toHaveProperty('reasoning_effort');
  });

  it('reasoning tokens an upstream reports show in each form and are charged as completion', async () => {
    // OpenAI's count, read on the Gemini form.
    fakes['openai-compatible'].reply({
      body: {
        ...fixtureJson('openai-compatible', 'openai-text-response.json'),
        usage: {
          prompt_tokens: 20,
          completion_tokens: 50,
          completion_tokens_details: { reasoning_tokens: 30 },
        },
      },
    });
    const gemini = await ask('gemini', KINDS['openai-compatible'].think, question('gemini'), false);
    expect(gemini.body.usageMetadata).toMatchObject({
      candidatesTokenCount: 20,
      thoughtsTokenCount: 30,
      totalTokenCount: 70,
    });
    expect((await record(gemini.ray)).completion_tokens).toBe(50);
    // Gemini's count (apart from its candidates), read on the chat form.
    geminiText();
    const chat = await ask(
      'chat_completions',
      KINDS.gemini.think,
      question('chat_completions'),
      false,
    );
    const recorded = fixtureJson('gemini', 'gemini-text-response.json').usageMetadata as Json;
    expect(chat.body.usage.completion_tokens).toBe(
      recorded.candidatesTokenCount + recorded.thoughtsTokenCount,
    );
    expect(chat.reasoningTokens).toBe(recorded.thoughtsTokenCount);
    const charged = await record(chat.ray);
    expect(toNanos(charged.cost_usd)).toBe(
      charged.prompt_tokens * PRICES.prompt + charged.completion_tokens * PRICES.completion,
    );
  });

  it('reasoning_content from an openai-compatible stream reaches the Messages form as a thinking block', async () => {
    const chunk = (delta: Json, extra: Json = {}) =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
    fakes['openai-compatible'].reply({
      events: [
        chunk({ role: 'assistant', reasoning_content: 'Think ' }),
        chunk({ reasoning_content: 'hard.' }),
        chunk({ content: 'Sunny.' }),
        `data: ${JSON.stringify({ id: 'c', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
        `data: ${JSON.stringify({ id: 'c', choices: [], usage: { prompt_tokens: 5, completion_tokens: 9, completion_tokens_details: { reasoning_tokens: 4 } } })}\n\n`,
        'data: [DONE]\n\n',
      ],
    });
    const seen = await ask(
      'messages',
      KINDS['openai-compatible'].think,
      question('messages'),
      true,
    );
    expect(seen.reasoning).toBe('Think hard.');
    expect(seen.text).toBe('Sunny.');
    expect(seen.completion).toBe(9);
  });
});

describe('structured outputs, out to each provider kind', () => {
  const schema = {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  };

  it('chat response_format json_schema → Anthropic output_config.format and Gemini responseJsonSchema', async () => {
    const body = question('chat_completions', {
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'place', schema, strict: true },
      },
    });
    fakes.anthropic.reply({ body: fixtureJson('anthropic', 'anthropic-text-response.json') });
    await ask('chat_completions', KINDS.anthropic.plain, body, false);
    expect(sent('anthropic').output_config).toEqual({ format: { type: 'json_schema', schema } });
    fakes.gemini.reply({ body: fixtureJson('gemini', 'gemini-text-response.json') });
    await ask('chat_completions', KINDS.gemini.plain, body, false);
    expect(sent('gemini').generationConfig).toMatchObject({
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
    });
  });

  it('Messages output_config.format and Gemini responseSchema → OpenAI response_format', async () => {
    const openAiText = () =>
      fakes['openai-compatible'].reply({
        body: fixtureJson('openai-compatible', 'openai-text-response.json'),
      });
    openAiText();
    await ask(
      'messages',
      KINDS['openai-compatible'].plain,
      question('messages', { output_config: { format: { type: 'json_schema', schema } } }),
      false,
    );
    expect(sent('openai-compatible').response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'response', schema, strict: true },
    });
    openAiText();
    await ask(
      'gemini',
      KINDS['openai-compatible'].plain,
      question('gemini', {
        generationConfig: {
          responseMimeType: 'application/json',
          responseSchema: { type: 'OBJECT', properties: { city: { type: 'STRING' } } },
        },
      }),
      false,
    );
    expect(sent('openai-compatible').response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'response',
        schema: { type: 'object', properties: { city: { type: 'string' } } },
        strict: true,
      },
    });
    // Any JSON: json_object, both ways.
    openAiText();
    await ask(
      'gemini',
      KINDS['openai-compatible'].plain,
      question('gemini', { generationConfig: { responseMimeType: 'application/json' } }),
      false,
    );
    expect(sent('openai-compatible').response_format).toEqual({ type: 'json_object' });
    fakes.gemini.reply({ body: fixtureJson('gemini', 'gemini-text-response.json') });
    await ask(
      'chat_completions',
      KINDS.gemini.plain,
      question('chat_completions', { response_format: { type: 'json_object' } }),
      false,
    );
    expect(sent('gemini').generationConfig.responseMimeType).toBe('application/json');
    expect(sent('gemini').generationConfig).not.toHaveProperty('responseJsonSchema');
  });
});
