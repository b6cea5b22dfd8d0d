/**
 * An OpenAI-compatible upstream's `refusal` and `logprobs` reach a chat-completions client as the
 * vendor sends them, plain and streamed, over real HTTP against a fake upstream on loopback; a
 * client of another form reads a refusal as text.
 */
import {
  KIND_PROVIDERS,
  startKindUpstreams,
  type KindUpstreams,
} from '../../testing/upstreams/kind-upstreams';
import { callForm, parseSse } from '../../testing/upstreams/public-forms';
import { startTestGateway, type TestGateway } from '../../testing/gateway-support';

let gateway: TestGateway;
let key: string;
let upstreams: KindUpstreams;
const model = KIND_PROVIDERS['openai-compatible'].model;

beforeAll(async () => {
  upstreams = await startKindUpstreams();
  gateway = await startTestGateway({ providers: upstreams.providers });
  key = (await gateway.createKey({ kind: 'account', limitUsd: 100 })).key;
});
afterAll(async () => {
  await gateway?.stop();
  await upstreams?.close();
});

const tokenLogprob = { token: 'Hi', logprob: -0.1, bytes: [72, 105], top_logprobs: [] };
const refusalLogprob = { token: 'No', logprob: -0.3, bytes: [78, 111], top_logprobs: [] };
const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
const completion = (choice: Record<string, unknown>) => ({
  id: 'chatcmpl-upstream',
  object: 'chat.completion',
  created: 1,
  model: 'upstream-model',
  usage,
  choices: [{ index: 0, finish_reason: 'stop', ...choice }],
});
const chunk = (choices: unknown[], extra: object = {}) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-upstream', object: 'chat.completion.chunk', created: 1, model: 'upstream-model', choices, ...extra })}\n\n`;
const question = { messages: [{ role: 'user', content: 'Say hi' }] };

describe('a plain answer', () => {
  it('carries the upstream’s log probabilities when the client asked for them', async () => {
    upstreams.fakes['openai-compatible'].reply({
      body: completion({
        message: { role: 'assistant', content: 'Hi', refusal: null },
        logprobs: { content: [tokenLogprob], refusal: null },
      }),
    });
    const response = await callForm('chat_completions', gateway.url, key, model, {
      ...question,
      logprobs: true,
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { choices: Array<Record<string, unknown>> };
    expect(answer.choices[0]!.logprobs).toEqual({ content: [tokenLogprob], refusal: null });
    expect(answer.choices[0]!.message).toMatchObject({ content: 'Hi', refusal: null });
  });

  it('carries a refusal in `refusal`, with null content, as the vendor sends it', async () => {
    upstreams.fakes['openai-compatible'].reply({
      body: completion({
        message: { role: 'assistant', content: null, refusal: 'I cannot do that' },
        logprobs: null,
      }),
    });
    const response = await callForm('chat_completions', gateway.url, key, model, question);
    const answer = (await response.json()) as { choices: Array<Record<string, unknown>> };
    expect(answer.choices[0]!.message).toMatchObject({
      content: null,
      refusal: 'I cannot do that',
    });
    expect(answer.choices[0]!.logprobs).toBeNull();
  });

  it('reads a refusal as text to a Messages client', async () => {
    upstreams.fakes['openai-compatible'].reply({
      body: completion({
        message: { role: 'assistant', content: null, refusal: 'I cannot do that' },
      }),
    });
    const response = await callForm('messages', gateway.url, key, model, {
      ...question,
      max_tokens: 100,
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { content: unknown[] };
    expect(answer.content).toEqual([{ type: 'text', text: 'I cannot do that' }]);
  });
});

describe('a stream', () => {
  it('carries the refusal as `delta.refusal` and each chunk’s log probabilities', async () => {
    upstreams.fakes['openai-compatible'].reply({
      events: [
        chunk([
          {
            index: 0,
            delta: { role: 'assistant', content: '', refusal: null },
            logprobs: null,
            finish_reason: null,
          },
        ]),
        chunk([
          {
            index: 0,
            delta: { content: 'Hi' },
            logprobs: { content: [tokenLogprob], refusal: null },
            finish_reason: null,
          },
        ]),
        chunk([
          {
            index: 0,
            delta: { refusal: 'No.' },
            logprobs: { content: null, refusal: [refusalLogprob] },
            finish_reason: null,
          },
        ]),
        chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]),
        chunk([], { usage }),
        'data: [DONE]\n\n',
      ],
    });
    const response = await callForm(
      'chat_completions',
      gateway.url,
      key,
      model,
      { ...question, logprobs: true },
      { stream: true },
    );
    expect(response.status).toBe(200);
    const choices = parseSse(await response.text())
      .filter((event) => event.data !== '[DONE]')
      .map(
        (event) =>
          (JSON.parse(event.data) as { choices: Array<Record<string, unknown>> }).choices[0],
      )
      .filter((choice) => choice !== undefined);
    expect(choices).toContainEqual(
      expect.objectContaining({
        delta: { content: 'Hi' },
        logprobs: { content: [tokenLogprob], refusal: null },
      }),
    );
    expect(choices).toContainEqual(
      expect.objectContaining({
        delta: { refusal: 'No.' },
        logprobs: { content: null, refusal: [refusalLogprob] },
      }),
    );
  });
});
