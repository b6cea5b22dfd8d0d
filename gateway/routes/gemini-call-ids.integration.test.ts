/**
 * Function call ids through the Gemini form, with the pinned `@google/genai` client in a two-turn
 * tool loop to an Anthropic upstream that refuses tool ids it did not issue: the answer's
 * `functionCall.id` is the upstream's `tool_use.id`, and the client's `functionResponse.id` brings
 * the result back under it, plain and streamed.
 */
import {
  GoogleGenAI,
  type Content,
  type FunctionCall,
  type GenerateContentConfig,
} from '@google/genai';
import { textReply, toolCallReply } from '../../testing/agents/vendor-replies';
import {
  KIND_PROVIDERS,
  startKindUpstreams,
  type KindUpstreams,
} from '../../testing/upstreams/kind-upstreams';
import { anthropicToolIds } from '../../testing/upstreams/vendor-rules';
import { startTestGateway, type TestGateway } from '../../testing/gateway-support';

let gateway: TestGateway;
let upstreams: KindUpstreams;
let google: GoogleGenAI;
/** The tool ids the Anthropic upstream has issued: the only ones it takes back. */
const issued = new Set<string>();

beforeAll(async () => {
  upstreams = await startKindUpstreams();
  upstreams.fakes.anthropic.refuse = anthropicToolIds(issued);
  gateway = await startTestGateway({ providers: upstreams.providers });
  const { key } = await gateway.createKey({ kind: 'account', limitUsd: 10 });
  google = new GoogleGenAI({
    apiKey: key,
    httpOptions: { baseUrl: gateway.url, retryOptions: { attempts: 1 } },
  });
});
afterAll(async () => {
  await gateway?.stop();
  await upstreams?.close();
});

const { model } = KIND_PROVIDERS.anthropic;
const config: GenerateContentConfig = {
  tools: [
    {
      functionDeclarations: [
        {
          name: 'get_weather',
          parametersJsonSchema: {
            type: 'object',
            properties: { location: { type: 'string' } },
            required: ['location'],
          },
        },
      ],
    },
  ],
};
const question: Content = { role: 'user', parts: [{ text: 'Weather in Paris?' }] };

/** The upstream's answers, plain (the vendor's message) or streamed (its events). */
function scriptUpstream(stream: boolean, toolId: string) {
  issued.add(toolId);
  const call = { id: toolId, name: 'get_weather', args: { location: 'Paris' } };
  if (stream) {
    upstreams.fakes.anthropic.reply(
      toolCallReply('anthropic', call),
      textReply('anthropic', 'Sunny, 18 °C.'),
    );
    return;
  }
  const message = (content: object[], stopReason: string) => ({
    body: {
      id: 'msg_ids_test',
      type: 'message',
      role: 'assistant',
      model: KIND_PROVIDERS.anthropic.upstreamModel,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: { input_tokens: 40, output_tokens: 12 },
    },
  });
  upstreams.fakes.anthropic.reply(
    message([{ type: 'tool_use', id: call.id, name: call.name, input: call.args }], 'tool_use'),
    message([{ type: 'text', text: 'Sunny, 18 °C.' }], 'end_turn'),
  );
}

/** The answer's text (the client's `text` getter warns about the calls beside it). */
const textOf = (content: Content) => (content.parts ?? []).map((part) => part.text ?? '').join('');

/** One turn through the client; the answer's model content, text and calls. */
async function ask(stream: boolean, contents: Content[]) {
  if (!stream) {
    const answer = await google.models.generateContent({ model, contents, config });
    const content = answer.candidates![0]!.content!;
    return { content, text: textOf(content), calls: answer.functionCalls ?? [] };
  }
  const parts = [];
  const calls: FunctionCall[] = [];
  for await (const chunk of await google.models.generateContentStream({
    model,
    contents,
    config,
  })) {
    parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    calls.push(...(chunk.functionCalls ?? []));
  }
  const content: Content = { role: 'model', parts };
  return { content, text: textOf(content), calls };
}

describe.each([false, true])('@google/genai, streamed: %s', (stream) => {
  it("gets the upstream's tool id as functionCall.id, and its result back under it", async () => {
    const toolId = `toolu_ids_${stream ? 'stream' : 'plain'}`;
    scriptUpstream(stream, toolId);
    const before = upstreams.fakes.anthropic.requests.length;

    const first = await ask(stream, [question]);
    expect(first.calls).toEqual([{ id: toolId, name: 'get_weather', args: { location: 'Paris' } }]);
    const [call] = first.calls;
    const second = await ask(stream, [
      question,
      first.content,
      {
        role: 'user',
        parts: [{ functionResponse: { id: call!.id, name: call!.name, response: { temp_c: 18 } } }],
      },
    ]);
    expect(second.text).toBe('Sunny, 18 °C.');

    const sent = upstreams.fakes.anthropic.requests.slice(before);
    expect(sent).toHaveLength(2);
    const history = sent[1]!.body.messages as Array<{ role: string; content: object[] }>;
    expect(history.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          expect.objectContaining({ type: 'tool_use', id: toolId, input: { location: 'Paris' } }),
        ],
      },
      {
        role: 'user',
        content: [expect.objectContaining({ type: 'tool_result', tool_use_id: toolId })],
      },
    ]);
  });
});

it('the upstream refuses a tool id it did not issue, as a client that mints its own gets', async () => {
  // What a client sent when answers named no id: its own, on the call and on the response.
  const minted = 'get_weather_1795702464879_0';
  const refused = await google.models
    .generateContent({
      model,
      contents: [
        question,
        {
          role: 'model',
          parts: [
            { functionCall: { id: minted, name: 'get_weather', args: { location: 'Paris' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: minted, name: 'get_weather', response: { temp_c: 18 } } },
          ],
        },
      ],
      config,
    })
    .catch((error: unknown) => error);
  expect(refused).toMatchObject({ status: 400 });
  expect(String((refused as Error).message)).toContain('was not issued by this upstream');
});
