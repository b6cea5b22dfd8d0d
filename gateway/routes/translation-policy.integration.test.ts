/**
 * The translation policy over real HTTP: what agent clients send (the recorded Claude Code and
 * Gemini CLI requests) reaches every provider kind, a same-form upstream as sent and another kind
 * with what it cannot take dropped and reported; a `max_tokens` above the model's maximum is
 * lowered, reserved and counted as lowered; strict mode refuses instead.
 */
import { generationListSchema, generationRecordSchema } from '../../contract/gateway';
import type { SentRequest } from '../../testing/agents/agent-kit';
import type { UpstreamKind } from '../providers/upstream/provider-config';
import { RECORDED_ANSWERS, KIND_PROVIDERS } from '../../testing/upstreams/kind-upstreams';
import { startFakeUpstream, type FakeUpstream } from '../../testing/upstreams/fake-upstream';
import { callForm, formErrorMessage, readFormAnswer } from '../../testing/upstreams/public-forms';
import { providersFileFor, UPSTREAM_KINDS } from '../../testing/upstreams/upstream-kit';
import { getWithKey, startTestGateway, type TestGateway } from '../../testing/gateway-support';
import { vendorFixtureText, type Vendor } from '../vendors/fixtures';

/** Each kind's model here: at most 8,192 output tokens, in a context of 20,000. */
const MAX_OUTPUT = 8_192;
const CONTEXT = 20_000;

let gateway: TestGateway;
let key: string;
const fakes = {} as Record<UpstreamKind, FakeUpstream>;

beforeAll(async () => {
  for (const kind of UPSTREAM_KINDS) fakes[kind] = await startFakeUpstream();
  const setup = providersFileFor(
    UPSTREAM_KINDS.map((kind) => ({
      id: KIND_PROVIDERS[kind].provider,
      kind,
      url: fakes[kind].url,
      retry: { max_attempts: 1 },
      models: [
        {
          id: KIND_PROVIDERS[kind].model,
          upstreamModel: KIND_PROVIDERS[kind].upstreamModel,
          prompt: '0.000001',
          completion: '0.000002',
          contextLength: CONTEXT,
          maxCompletionTokens: MAX_OUTPUT,
        },
      ],
    })),
  );
  gateway = await startTestGateway({ providers: setup.providers });
  key = (await gateway.createKey({ kind: 'account', limitUsd: 100 })).key;
});
afterAll(async () => {
  await gateway?.stop();
  for (const fake of Object.values(fakes)) await fake.close();
});

type Fixture = { cli: string; requests: SentRequest[] };
const fixture = (vendor: Vendor, name: string): Fixture =>
  JSON.parse(vendorFixtureText(vendor, name)) as Fixture;

const claudeCode = fixture('anthropic', 'claude-code-requests.json');
const geminiCli = fixture('gemini', 'gemini-cli-requests.json');

async function recordOf(cfRay: string) {
  const response = await getWithKey(`${gateway.url}/v1/generation?id=${cfRay}`, key);
  expect(response.status).toBe(200);
  return generationRecordSchema.parse(await response.json());
}

const listOf = (header: string | null) => (header === null ? [] : header.split(','));

/** With thinking on, whether the last assistant turn calls a tool without a thinking block first. */
function toolTurnWithoutThinking(body: Record<string, unknown>): boolean {
  const thinking = body.thinking as { type?: string } | undefined;
  if (!thinking || thinking.type === 'disabled') return false;
  const messages = body.messages as Array<{ role: string; content: unknown }>;
  const last = messages.findLast((message) => message.role === 'assistant');
  if (!last || !Array.isArray(last.content)) return false;
  const types = (last.content as Array<{ type: string }>).map((block) => block.type);
  return types.includes('tool_use') && types[0] !== 'thinking';
}

describe.each(UPSTREAM_KINDS)('what Claude Code sends, to a %s upstream', (kind) => {
  it.each(claudeCode.requests.map((request, index) => ({ request, name: `#${index + 1}` })))(
    'request $name is answered, and what could not go is dropped and reported',
    async ({ request }) => {
      fakes[kind].reply(RECORDED_ANSWERS[kind].text.stream.reply());
      const before = fakes[kind].requests.length;
      const body = { ...request.body, model: KIND_PROVIDERS[kind].model };
      const response = await fetch(`${gateway.url}${request.path}`, {
        method: 'POST',
        headers: { ...request.headers, 'x-api-key': key },
        body: JSON.stringify(body),
      });
      expect(response.status, await response.clone().text()).toBe(200);
      const answer = await readFormAnswer('messages', response, true);
      expect(answer.text).toBe(RECORDED_ANSWERS[kind].text.stream.text);
      expect(fakes[kind].requests.length).toBe(before + 1);
      const sent = fakes[kind].requests.at(-1)!;

      const asked = request.body.max_tokens as number;
      // Recorded against a model that signs no thinking: toward Anthropic, whose rules the fake
      // does not check here, such a tool-call turn goes without thinking, as the vendor requires.
      const unsigned = kind === 'anthropic' && toolTurnWithoutThinking(request.body);
      const thinking = request.body.thinking as { type: string } | undefined;
      const adjusted = [
        `max_tokens=${asked}->${MAX_OUTPUT}`,
        ...(unsigned ? [`thinking=${thinking!.type}->disabled`] : []),
      ];
      expect(listOf(response.headers.get('x-gateway-adjusted-params'))).toEqual(adjusted);
      const dropped = listOf(response.headers.get('x-gateway-dropped-params'));
      const record = await recordOf(response.headers.get('cf-ray')!);
      expect(record.translation?.adjusted).toEqual(adjusted);

      if (kind === 'anthropic') {
        // The same form: the body as Claude Code wrote it, with the model and bound replaced,
        // and its betas and version passed on.
        const { thinking: _thinking, ...withoutThinking } = request.body;
        // Claude Code's billing line included: it is Anthropic's to read.
        expect(sent.body).toEqual({
          ...(unsigned ? withoutThinking : request.body),
          model: KIND_PROVIDERS.anthropic.upstreamModel,
          max_tokens: MAX_OUTPUT,
        });
        expect(sent.headers['anthropic-beta']).toBe(request.headers['anthropic-beta']);
        expect(sent.headers['anthropic-version']).toBe(request.headers['anthropic-version']);
        expect(dropped).toEqual([]);
        expect(record.translation?.dropped).toEqual([]);
        return;
      }
      // Every top-level field the other kind cannot take is reported, as are the betas.
      const expectedTopLevel = ['thinking', 'context_management', 'output_config'].filter(
        (field) => field in request.body,
      );
      for (const field of [...expectedTopLevel, 'headers.anthropic-beta']) {
        expect(dropped).toContain(field);
      }
      // Every cache_control and defer_loading of the request is reported by its path.
      const nested = JSON.stringify(request.body).match(/"(cache_control|defer_loading)"/g) ?? [];
      expect(dropped.filter((field) => /cache_control|defer_loading/.test(field))).toHaveLength(
        nested.length,
      );
      expect(record.translation?.dropped).toEqual(dropped);
      // The model still sees the system text, every tool and every turn.
      const sentText = JSON.stringify(sent.body);
      expect(sentText).not.toMatch(/cache_control|defer_loading|context_management|budget_tokens/);
      for (const tool of request.body.tools as Array<{ name: string }>) {
        expect(sentText).toContain(`"${tool.name}"`);
      }
      const [billing, ...system] = (request.body.system as Array<{ text: string }>).map(
        (block) => block.text,
      );
      for (const text of system) expect(sentText).toContain(JSON.stringify(text).slice(1, 40));
      // All but Claude Code's billing line, which changes with each conversation: the upstream's
      // system prompt starts with what comes after it, so its prefix cache can hit.
      expect(billing).toMatch(/^x-anthropic-billing-header: /);
      expect(dropped).toContain('system.0.text(x-anthropic-billing-header)');
      expect(sentText).not.toContain('x-anthropic-billing-header');
      const upstreamSystem =
        kind === 'gemini'
          ? (sent.body as { systemInstruction: { parts: Array<{ text: string }> } })
              .systemInstruction.parts[0]!.text
          : (sent.body as { messages: Array<{ role: string; content: string }> }).messages[0]!
              .content;
      expect(upstreamSystem.startsWith(system.join('\n\n').slice(0, 160))).toBe(true);
    },
  );
});

describe.each(UPSTREAM_KINDS)('what Gemini CLI sends, to a %s upstream', (kind) => {
  it('is answered; topK and thinkingConfig reach Gemini, and are dropped and reported elsewhere', async () => {
    const [request] = geminiCli.requests;
    fakes[kind].reply(RECORDED_ANSWERS[kind].text.stream.reply());
    const before = fakes[kind].requests.length;
    const response = await fetch(
      `${gateway.url}/v1beta/models/${KIND_PROVIDERS[kind].model}:streamGenerateContent?alt=sse`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
        body: JSON.stringify(request!.body),
      },
    );
    expect(response.status, await response.clone().text()).toBe(200);
    expect((await readFormAnswer('gemini', response, true)).text).toBe(
      RECORDED_ANSWERS[kind].text.stream.text,
    );
    expect(fakes[kind].requests.length).toBe(before + 1);
    const sent = fakes[kind].requests.at(-1)!;
    const dropped = listOf(response.headers.get('x-gateway-dropped-params'));
    if (kind === 'gemini') {
      // The same form: as sent, with only the gateway's output bound added.
      const generationConfig = request!.body.generationConfig as Record<string, unknown>;
      expect(sent.body).toEqual({
        ...request!.body,
        generationConfig: { ...generationConfig, maxOutputTokens: MAX_OUTPUT },
      });
      expect(dropped).toEqual([]);
      return;
    }
    expect(dropped).toEqual(['generationConfig.topK', 'generationConfig.thinkingConfig']);
    const cfRay = response.headers.get('cf-ray')!;
    expect((await recordOf(cfRay)).translation).toEqual({ dropped, adjusted: [] });
    // The listing carries the same report.
    const page = generationListSchema.parse(
      await (await getWithKey(`${gateway.url}/v1/generations?limit=5`, key)).json(),
    );
    expect(page.data.find((record) => record.id === cfRay)?.translation).toEqual({
      dropped,
      adjusted: [],
    });
    expect(JSON.stringify(sent.body)).not.toMatch(/topK|top_k|thinkingConfig/);
  });
});

describe('max_tokens above the model’s maximum', () => {
  it.each(UPSTREAM_KINDS)(
    'is lowered toward a %s upstream, reserved as lowered, and reported in each form',
    async (kind) => {
      for (const form of ['chat_completions', 'messages', 'gemini'] as const) {
        for (const stream of [false, true]) {
          // Enough for the lowered bound (8,192 at $0.000002) but not for the asked 100,000.
          const poor = (await gateway.createKey({ kind: 'account', limitUsd: 0.05 })).key;
          fakes[kind].reply(RECORDED_ANSWERS[kind].text[stream ? 'stream' : 'plain'].reply());
          const body =
            form === 'gemini'
              ? {
                  contents: [{ role: 'user', parts: [{ text: 'Hello' }] }],
                  generationConfig: { maxOutputTokens: 100_000 },
                }
              : { max_tokens: 100_000, messages: [{ role: 'user', content: 'Hello' }] };
          const response = await callForm(
            form,
            gateway.url,
            poor,
            KIND_PROVIDERS[kind].model,
            body,
            {
              stream,
            },
          );
          expect(response.status, await response.clone().text()).toBe(200);
          const field = form === 'gemini' ? 'generationConfig.maxOutputTokens' : 'max_tokens';
          expect(response.headers.get('x-gateway-adjusted-params')).toBe(
            `${field}=100000->${MAX_OUTPUT}`,
          );
          await readFormAnswer(form, response, stream);
          const sent = JSON.stringify(fakes[kind].requests.at(-1)!.body);
          expect(sent).toContain(String(MAX_OUTPUT));
          expect(sent).not.toContain('100000');
        }
      }
    },
  );

  it('counts against the context as lowered', async () => {
    // About 11,000 prompt tokens: in a context of 20,000 they fit with the lowered 8,192, not
    // with the 100,000 asked.
    const prompt = 'word '.repeat(11_000);
    fakes.anthropic.reply(RECORDED_ANSWERS.anthropic.text.plain.reply());
    const response = await callForm('messages', gateway.url, key, KIND_PROVIDERS.anthropic.model, {
      max_tokens: 100_000,
      messages: [{ role: 'user', content: prompt }],
    });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(response.headers.get('x-gateway-adjusted-params')).toBe(
      `max_tokens=100000->${MAX_OUTPUT}`,
    );
  });

  it('is refused as before in strict mode, naming the field and the maximum', async () => {
    const before = fakes.gemini.requests.length;
    const response = await callForm(
      'gemini',
      gateway.url,
      key,
      KIND_PROVIDERS.gemini.model,
      {
        contents: [{ role: 'user', parts: [{ text: 'Hello' }] }],
        generationConfig: { maxOutputTokens: 100_000 },
      },
      { headers: { 'x-gateway-require-parameters': 'true' } },
    );
    expect(response.status).toBe(400);
    expect(formErrorMessage('gemini', await response.json())).toBe(
      `generationConfig.maxOutputTokens is 100000, more than ${KIND_PROVIDERS.gemini.model} can produce (${MAX_OUTPUT}).`,
    );
    expect(fakes.gemini.requests.length).toBe(before);
  });
});

describe('system-role messages inside a Messages conversation', () => {
  const body = {
    max_tokens: 100,
    system: 'Be brief.',
    messages: [
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi.' },
      { role: 'system', content: [{ type: 'text', text: 'Answer in French now.' }] },
      { role: 'user', content: 'How are you?' },
    ],
  };

  it('keep their place toward an openai-compatible upstream', async () => {
    fakes['openai-compatible'].reply(RECORDED_ANSWERS['openai-compatible'].text.plain.reply());
    const response = await callForm(
      'messages',
      gateway.url,
      key,
      KIND_PROVIDERS['openai-compatible'].model,
      body,
    );
    expect(response.status, await response.clone().text()).toBe(200);
    expect(fakes['openai-compatible'].requests.at(-1)!.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi.' },
      { role: 'system', content: 'Answer in French now.' },
      { role: 'user', content: 'How are you?' },
    ]);
    expect(response.headers.get('x-gateway-dropped-params')).toBeNull();
  });

  it('join the system instruction toward a gemini upstream, never dropped', async () => {
    fakes.gemini.reply(RECORDED_ANSWERS.gemini.text.plain.reply());
    const response = await callForm(
      'messages',
      gateway.url,
      key,
      KIND_PROVIDERS.gemini.model,
      body,
    );
    expect(response.status, await response.clone().text()).toBe(200);
    const sent = fakes.gemini.requests.at(-1)!.body;
    expect(sent.systemInstruction).toEqual({
      parts: [{ text: 'Be brief.\n\nAnswer in French now.' }],
    });
    expect(sent.contents).toHaveLength(3);
  });

  it('reach an anthropic upstream as sent', async () => {
    fakes.anthropic.reply(RECORDED_ANSWERS.anthropic.text.plain.reply());
    const response = await callForm(
      'messages',
      gateway.url,
      key,
      KIND_PROVIDERS.anthropic.model,
      body,
    );
    expect(response.status, await response.clone().text()).toBe(200);
    expect(fakes.anthropic.requests.at(-1)!.body.messages).toEqual(body.messages);
  });
});

describe('what the model sees, toward another kind', () => {
  it('a Gemini part the canonical request cannot carry is refused, never dropped', async () => {
    const before = fakes.anthropic.requests.length;
    const response = await callForm('gemini', gateway.url, key, KIND_PROVIDERS.anthropic.model, {
      contents: [
        {
          role: 'user',
          parts: [{ text: 'Run this' }, { executableCode: { language: 'PYTHON', code: '1+1' } }],
        },
      ],
    });
    expect(response.status).toBe(400);
    expect(formErrorMessage('gemini', await response.json())).toContain("'contents.0.parts.1'");
    expect(fakes.anthropic.requests.length).toBe(before);
  });

  it('a Messages server tool is refused toward another kind, even without strict mode', async () => {
    const response = await callForm('messages', gateway.url, key, KIND_PROVIDERS.gemini.model, {
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Search the web' }],
      tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }],
    });
    expect(response.status).toBe(400);
    expect(formErrorMessage('messages', await response.json())).toContain("'tools.0'");
  });
});

describe('the Gemini form’s thinkingConfig', () => {
  it.each(UPSTREAM_KINDS)('is accepted in each spelling toward a %s upstream', async (kind) => {
    fakes[kind].reply(RECORDED_ANSWERS[kind].text.plain.reply());
    const thinkingConfig = { includeThoughts: true, thinkingBudget: 1_024, thinkingLevel: 'HIGH' };
    const response = await callForm('gemini', gateway.url, key, KIND_PROVIDERS[kind].model, {
      contents: [{ role: 'user', parts: [{ text: 'Hello' }] }],
      generationConfig: { maxOutputTokens: 100, topK: 40, thinkingConfig },
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const sent = fakes[kind].requests.at(-1)!.body;
    if (kind === 'gemini') {
      expect(sent.generationConfig).toMatchObject({ topK: 40, thinkingConfig });
      expect(response.headers.get('x-gateway-dropped-params')).toBeNull();
    } else {
      expect(response.headers.get('x-gateway-dropped-params')).toBe(
        'generationConfig.topK,generationConfig.thinkingConfig',
      );
    }
  });
});
