/**
 * The chat-completion form's answers: a refusal and log probabilities, when an upstream sent them,
 * reach the client in the vendor's fields (plain and streamed alike), and are null otherwise, as
 * the vendor sends them.
 */
import {
  gatherResponse,
  type CanonicalResponse,
  type PipelineEvent,
  type PricedFinish,
} from '../../canonical/model';
import { parseServerSentEvents, RecordingResponse } from '../../../testing/recording-response';
import { toChatCompletion } from './canonical-to-response';
import { writeChatCompletionStream } from './canonical-to-stream';

const traceId = '0123456789abcdef-LCL';
const finish: PricedFinish = {
  type: 'finish',
  finishReason: 'stop',
  stopSequence: null,
  usage: { promptTokens: 11, completionTokens: 7 },
  costUsd: 0.000042,
};
const hello = { token: 'Hello', logprob: -0.1, bytes: [72, 101, 108, 108, 111], top_logprobs: [] };
const sorry = { token: 'Sorry', logprob: -0.3, bytes: [83], top_logprobs: [] };

async function* replay(events: PipelineEvent[]): AsyncGenerator<PipelineEvent> {
  yield* events;
}

const plain = (events: PipelineEvent[]) =>
  gatherResponse(replay(events)).then((response: CanonicalResponse) =>
    toChatCompletion(response, 'test/model', traceId, 1),
  );

async function streamed(events: PipelineEvent[]) {
  const response = new RecordingResponse();
  await writeChatCompletionStream(response.asServerResponse(), replay(events), {
    model: 'test/model',
    traceId,
    created: 1,
    includeUsage: false,
  });
  return parseServerSentEvents(response.body)
    .map((event) => event.data)
    .filter((data) => data !== '[DONE]')
    .map(
      (data) =>
        JSON.parse(data) as {
          choices: Array<{ delta: Record<string, unknown>; logprobs: unknown }>;
        },
    );
}

describe('a refusal', () => {
  const events: PipelineEvent[] = [
    { type: 'text-delta', text: 'I cannot ', channel: 'refusal' },
    { type: 'text-delta', text: 'do that.', channel: 'refusal' },
    finish,
  ];

  it('is message.refusal in a plain answer, with content null', async () => {
    const { message } = (await plain(events)).choices[0]!;
    expect(message.refusal).toBe('I cannot do that.');
    expect(message.content).toBeNull();
  });

  it('is delta.refusal in a stream, never content', async () => {
    const deltas = (await streamed(events)).map((chunk) => chunk.choices[0]?.delta ?? {});
    expect(deltas.map((delta) => delta.refusal ?? '').join('')).toBe('I cannot do that.');
    expect(deltas.map((delta) => delta.content ?? '').join('')).toBe('');
  });

  it('is null when the upstream sent none, as the vendor sends it', async () => {
    const answer = await plain([{ type: 'text-delta', text: 'Hello' }, finish]);
    expect(answer.choices[0]!.message).toMatchObject({ content: 'Hello', refusal: null });
    expect(answer.choices[0]!.logprobs).toBeNull();
    const chunks = await streamed([{ type: 'text-delta', text: 'Hello' }, finish]);
    for (const chunk of chunks) expect(chunk.choices[0]?.logprobs ?? null).toBeNull();
  });
});

describe('log probabilities the upstream sent', () => {
  const events: PipelineEvent[] = [
    { type: 'text-delta', text: 'Hello', logprobs: [hello] },
    { type: 'text-delta', text: 'Sorry', channel: 'refusal', logprobs: [sorry] },
    finish,
  ];

  it('are the choice’s logprobs in a plain answer, content and refusal apart', async () => {
    expect((await plain(events)).choices[0]!.logprobs).toEqual({
      content: [hello],
      refusal: [sorry],
    });
  });

  it('ride on the chunk of their tokens in a stream', async () => {
    const withLogprobs = (await streamed(events))
      .map((chunk) => chunk.choices[0]?.logprobs)
      .filter((logprobs) => logprobs !== null && logprobs !== undefined);
    expect(withLogprobs).toEqual([
      { content: [hello], refusal: null },
      { content: null, refusal: [sorry] },
    ]);
  });
});
