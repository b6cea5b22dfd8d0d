/**
 * Compaction in the Responses form, over HTTP on loopback, to an upstream of each kind (Anthropic,
 * OpenAI's Responses wire, an OpenAI-compatible chat wire, Gemini) and to a simulated model: a `compaction_trigger` item (streamed, as Codex sends
 * it) and `POST /v1/responses/compact` each make one ordinary request for the summary, charged and
 * recorded, answered with one `compaction` item whose sealed content is opened again into what
 * the model sees on the next turn. Content the gateway cannot open is refused by name.
 */
import { openCompaction } from '../canonical/compaction-envelope';
import { textReply } from '../../testing/agents/vendor-replies';
import { SUMMARY_REQUEST } from '../forms/responses/compaction';
import { startFakeUpstream, type FakeUpstream } from '../../testing/upstreams/fake-upstream';
import { providersFileFor } from '../../testing/upstreams/upstream-kit';
import {
  bearer,
  eventually,
  postJson,
  readSseData,
  startTestGateway,
  type TestGateway,
} from '../../testing/gateway-support';

const WIRES = ['anthropic', 'openai-responses', 'openai-compatible', 'gemini'] as const;
type Wire = (typeof WIRES)[number];

let gateway: TestGateway;
let key: string;
const fakes = {} as Record<Wire, FakeUpstream>;

beforeAll(async () => {
  for (const wire of WIRES) fakes[wire] = await startFakeUpstream();
  const setup = providersFileFor(
    WIRES.map((wire) => ({
      id: `up-${wire}`,
      kind: wire === 'openai-responses' ? 'openai-compatible' : wire,
      url: fakes[wire].url,
      retry: { max_attempts: 1 },
      ...(wire === 'openai-responses' && { responses_api: true }),
      models: [
        {
          id: `test/${wire}`,
          upstreamModel: 'upstream-model',
          prompt: '0.000001',
          completion: '0.000002',
        },
      ],
    })),
    { includeSimulatedModels: true },
  );
  gateway = await startTestGateway({ providers: setup.providers });
  key = (await gateway.createKey({ kind: 'account', limitUsd: 5 })).key;
});
afterAll(async () => {
  await gateway?.stop();
  for (const fake of Object.values(fakes)) await fake?.close();
});

const user = (text: string) => ({ role: 'user', content: [{ type: 'input_text', text }] });
const conversation = [
  user('Rename the parser module to reader.'),
  { type: 'function_call', call_id: 'call_1', name: 'exec_command', arguments: '{"cmd":"ls"}' },
  { type: 'function_call_output', call_id: 'call_1', output: 'parser.ts' },
];

/** The text the upstream was sent, whatever its wire. */
const sentText = (fake: FakeUpstream) => JSON.stringify(fake.requests.at(-1)!.body);

/** An answer of `wire` whole (not streamed), as `/v1/responses/compact` asks for. */
function wholeReply(wire: Wire, text: string) {
  if (wire === 'anthropic')
    return {
      body: {
        id: 'msg_compact',
        type: 'message',
        role: 'assistant',
        model: 'upstream-model',
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 90, output_tokens: 12 },
      },
    };
  if (wire === 'openai-compatible')
    return {
      body: {
        id: 'chatcmpl-compact',
        object: 'chat.completion',
        created: 1,
        model: 'upstream-model',
        choices: [
          { index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 90, completion_tokens: 12, total_tokens: 102 },
      },
    };
  if (wire === 'gemini')
    return {
      body: {
        candidates: [
          { index: 0, content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP' },
        ],
        usageMetadata: { promptTokenCount: 90, candidatesTokenCount: 12, totalTokenCount: 102 },
        modelVersion: 'upstream-model',
      },
    };
  return {
    body: {
      id: 'resp_upstream',
      object: 'response',
      created_at: 1,
      status: 'completed',
      model: 'upstream-model',
      output: [
        {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text, annotations: [] }],
        },
      ],
      usage: { input_tokens: 90, output_tokens: 12, total_tokens: 102 },
    },
  };
}

async function recordOf(cfRay: string) {
  return eventually(async () => {
    const response = await fetch(`${gateway.url}/v1/generation?id=${cfRay}`, {
      headers: bearer(key),
    });
    return response.ok
      ? ((await response.json()) as { outcome: string; cost_usd: number; model: string })
      : undefined;
  });
}

describe.each(WIRES)('compaction toward %s', (wire) => {
  it('answers a streamed compaction_trigger with one sealed compaction item, then opens it next turn', async () => {
    const fake = fakes[wire];
    fake.reply(textReply(wire, 'Summary: renaming parser to reader; ls showed parser.ts.'));
    const response = await postJson(
      `${gateway.url}/v1/responses`,
      {
        model: `test/${wire}`,
        stream: true,
        store: false,
        input: [...conversation, { type: 'compaction_trigger' }],
      },
      { key },
    );
    expect(response.status).toBe(200);
    const events = (await readSseData(response)).map(
      (data) => JSON.parse(data) as { type: string; item?: Record<string, unknown> },
    );
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.output_item.done',
      'response.completed',
    ]);
    const item = events[3]!.item!;
    expect(item.type).toBe('compaction');
    expect(openCompaction(item.encrypted_content as string)).toEqual({
      kind: 'gateway',
      summary: 'Summary: renaming parser to reader; ls showed parser.ts.',
    });
    // The upstream was asked for the summary in place of the trigger, which it never saw.
    expect(sentText(fake)).toContain(SUMMARY_REQUEST);
    expect(sentText(fake)).not.toContain('compaction_trigger');
    // An ordinary request: recorded and charged.
    const record = await recordOf(response.headers.get('cf-ray')!);
    expect(record.outcome).toBe('completed');
    expect(record.cost_usd).toBeGreaterThan(0);

    // The next turn: the summary is what the model sees, the envelope never reaches it.
    fake.reply(textReply(wire, 'Renamed.'));
    const next = await postJson(
      `${gateway.url}/v1/responses`,
      { model: `test/${wire}`, stream: true, input: [item, user('Go on.')] },
      { key },
    );
    expect(next.status).toBe(200);
    await readSseData(next);
    expect(sentText(fake)).toContain('renaming parser to reader');
    expect(sentText(fake)).not.toContain('gwc1:');
  });

  it('serves POST /v1/responses/compact with the compaction item, charged as a request', async () => {
    const fake = fakes[wire];
    fake.reply(wholeReply(wire, 'Summary for the compact route.'));
    const response = await postJson(
      `${gateway.url}/v1/responses/compact`,
      { model: `test/${wire}`, input: conversation, instructions: 'You are a coding agent.' },
      { key },
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      object: string;
      output: Array<{ type: string; encrypted_content: string }>;
      usage: { input_tokens: number; output_tokens: number };
    };
    expect(body.object).toBe('response.compaction');
    expect(body.output).toHaveLength(1);
    expect(body.output[0]!.type).toBe('compaction');
    expect(openCompaction(body.output[0]!.encrypted_content)).toEqual({
      kind: 'gateway',
      summary: 'Summary for the compact route.',
    });
    expect(body.usage).toMatchObject({ input_tokens: 90, output_tokens: 12 });
    expect(sentText(fake)).toContain(SUMMARY_REQUEST);
    const record = await recordOf(response.headers.get('cf-ray')!);
    expect(record.cost_usd).toBeGreaterThan(0);
  });
});

it('compacts toward a simulated model, which has no upstream to ask', async () => {
  const response = await postJson(
    `${gateway.url}/v1/responses/compact`,
    { model: 'sim/chat-standard', input: conversation },
    { key },
  );
  expect(response.status).toBe(200);
  const body = (await response.json()) as {
    output: Array<{ type: string; encrypted_content: string }>;
  };
  expect(body.output.map((item) => item.type)).toEqual(['compaction']);
  const opened = openCompaction(body.output[0]!.encrypted_content);
  expect(opened.kind).toBe('gateway');
  expect((opened as { summary: string }).summary.length).toBeGreaterThan(0);
  const record = await recordOf(response.headers.get('cf-ray')!);
  expect(record.model).toBe('sim/chat-standard');
});

it('refuses a compaction the gateway did not seal toward Anthropic, and passes it to a Responses upstream', async () => {
  const foreign = { type: 'compaction', encrypted_content: 'gAAAAABo-made-by-openai' };
  const refused = await postJson(
    `${gateway.url}/v1/responses`,
    { model: 'test/anthropic', input: [foreign, user('Go on.')] },
    { key },
  );
  expect(refused.status).toBe(400);
  expect(JSON.stringify(await refused.json())).toContain('input.0');

  const fake = fakes['openai-responses'];
  fake.reply(textReply('openai-responses', 'Fine.'));
  const passed = await postJson(
    `${gateway.url}/v1/responses`,
    { model: 'test/openai-responses', stream: true, input: [foreign, user('Go on.')] },
    { key },
  );
  expect(passed.status).toBe(200);
  await readSseData(passed);
  expect(sentText(fake)).toContain('gAAAAABo-made-by-openai');
});

it('refuses a broken gateway envelope and a trigger that is not last, naming the field', async () => {
  const broken = await postJson(
    `${gateway.url}/v1/responses`,
    {
      model: 'test/openai-responses',
      input: [{ type: 'compaction', encrypted_content: 'gwc1:bm90IGpzb24' }, user('Go on.')],
    },
    { key },
  );
  expect(broken.status).toBe(400);
  expect(JSON.stringify(await broken.json())).toContain('input.0.encrypted_content');

  const misplaced = await postJson(
    `${gateway.url}/v1/responses`,
    { model: 'test/anthropic', input: [{ type: 'compaction_trigger' }, user('Go on.')] },
    { key },
  );
  expect(misplaced.status).toBe(400);
  expect(JSON.stringify(await misplaced.json())).toContain('input.0');

  const streamed = await postJson(
    `${gateway.url}/v1/responses/compact`,
    { model: 'test/anthropic', stream: true, input: conversation },
    { key },
  );
  expect(streamed.status).toBe(400);
  expect(JSON.stringify(await streamed.json())).toContain('stream');
});
