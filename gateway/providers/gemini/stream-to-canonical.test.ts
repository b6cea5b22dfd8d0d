/**
 * Gemini streams (`alt=sse`, recorded as the vendor sends them) → canonical events: parts go out
 * as each chunk arrives, usage is the last chunk's (a running total, never summed), function call
 * ids are unique across the stream, and a stream that stops early or reports an error fails.
 */
import type { CanonicalEvent } from '../../canonical/model';
import { UpstreamError } from '../upstream-error';
import { geminiAdapter } from './index';
import { fixtureChunks, fixtureEvents } from '../../../testing/providers/gemini-kit';

const providerId = 'google-main';

/** Runs a recorded stream through the transform: the events of each chunk, then the end. */
function replay(name: string) {
  const state = geminiAdapter.createStreamState();
  const perChunk: CanonicalEvent[][] = [];
  let failure: unknown;
  try {
    for (const event of fixtureEvents(name)) {
      perChunk.push(geminiAdapter.transformStreamEvent(state, event, providerId));
    }
    perChunk.push(geminiAdapter.finishStream(state, providerId));
  } catch (error) {
    failure = error;
  }
  return { perChunk, events: perChunk.flat(), failure };
}

describe('Gemini stream', () => {
  it('sends each chunk’s text at once and ends with the last chunk’s usage, not the sum', () => {
    const chunks = fixtureChunks('gemini-text.chunks.txt');
    const { perChunk, events, failure } = replay('gemini-text.chunks.txt');
    expect(failure).toBeUndefined();
    expect(perChunk.slice(0, chunks.length)).toEqual(
      chunks.map((chunk) => [
        { type: 'text-delta', text: chunk.candidates![0]!.content!.parts![0]!.text },
      ]),
    );
    const last = chunks.at(-1)!.usageMetadata!;
    const finish = events.at(-1);
    expect(finish).toEqual({
      type: 'finish',
      finishReason: 'stop',
      rawFinishReason: 'STOP',
      stopSequence: null,
      usage: { promptTokens: last.promptTokenCount, completionTokens: last.candidatesTokenCount },
    });
    // Every chunk of the recording reports usage, so a sum would differ from the last one.
    const summedPrompt = chunks.reduce(
      (sum, chunk) => sum + chunk.usageMetadata!.promptTokenCount!,
      0,
    );
    expect(summedPrompt).not.toBe(last.promptTokenCount);
  });

  it('sends each function call whole, with ids unique across the stream', () => {
    const chunks = fixtureChunks('gemini-function-call.chunks.txt');
    const calls = chunks.flatMap((chunk) =>
      chunk.candidates![0]!.content!.parts!.map((part) => part.functionCall!),
    );
    const { events, failure } = replay('gemini-function-call.chunks.txt');
    expect(failure).toBeUndefined();
    const toolCalls = events.filter((event) => event.type === 'tool-call');
    expect(
      toolCalls.map(({ name, arguments: text }) => ({ name, args: JSON.parse(text) })),
    ).toEqual(calls.map(({ name, args }) => ({ name, args })));
    expect(new Set(toolCalls.map((call) => call.id)).size).toBe(calls.length);
    const last = chunks.at(-1)!.usageMetadata!;
    expect(events.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: 'tool_calls',
      rawFinishReason: 'STOP',
      usage: {
        promptTokens: last.promptTokenCount,
        completionTokens: last.candidatesTokenCount! + last.thoughtsTokenCount!,
      },
    });
  });

  it('fails as cut when the stream ends without a finish reason, after sending what came', () => {
    const chunks = fixtureChunks('gemini-no-finish.chunks.txt');
    const { events, failure } = replay('gemini-no-finish.chunks.txt');
    expect(events.map((event) => (event.type === 'text-delta' ? event.text : event.type))).toEqual(
      chunks.map((chunk) => chunk.candidates![0]!.content!.parts![0]!.text),
    );
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ failure: 'cut', providerId });
  });

  it('fails in band with the vendor’s code and status when a chunk is an error', () => {
    const chunks = fixtureChunks('gemini-in-band-error.chunks.txt');
    const reported = chunks.find((chunk) => chunk.error)!.error!;
    const { events, failure } = replay('gemini-in-band-error.chunks.txt');
    expect(events).toEqual([
      { type: 'text-delta', text: chunks[0]!.candidates![0]!.content!.parts![0]!.text },
    ]);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({
      failure: 'in_band',
      providerId,
      message: reported.message,
      details: { status: reported.code, upstreamType: reported.status },
    });
  });

  it('fails as malformed on a chunk that is not JSON or not a response', () => {
    for (const data of ['{"candidates": [', '[1, 2]', '{"candidates": {"text": "hi"}}']) {
      const state = geminiAdapter.createStreamState();
      let failure: unknown;
      try {
        geminiAdapter.transformStreamEvent(state, { data }, providerId);
      } catch (error) {
        failure = error;
      }
      expect(failure, data).toBeInstanceOf(UpstreamError);
      expect((failure as UpstreamError).failure, data).toBe('malformed');
    }
  });

  it('keeps the last finish reason and usage, whichever chunk carries them', () => {
    const state = geminiAdapter.createStreamState();
    const send = (chunk: object) =>
      geminiAdapter.transformStreamEvent(state, { data: JSON.stringify(chunk) }, providerId);
    send({
      candidates: [{ content: { parts: [{ text: 'Hi' }] } }],
      usageMetadata: { promptTokenCount: 4 },
    });
    send({ candidates: [{ content: { parts: [{ text: '' }] }, finishReason: 'MAX_TOKENS' }] });
    // Usage that arrives after the finish reason still counts.
    send({
      usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 9, thoughtsTokenCount: 3 },
    });
    expect(geminiAdapter.finishStream(state, providerId)).toEqual([
      {
        type: 'finish',
        finishReason: 'length',
        rawFinishReason: 'MAX_TOKENS',
        stopSequence: null,
        usage: { promptTokens: 4, completionTokens: 12, reasoningTokens: 3 },
      },
    ]);
  });

  it('leaves the completion unreported when text followed the last usage (a placeholder or a running count)', () => {
    const state = geminiAdapter.createStreamState();
    const send = (chunk: object) =>
      geminiAdapter.transformStreamEvent(state, { data: JSON.stringify(chunk) }, providerId);
    send({
      candidates: [{ content: { parts: [{ text: 'Once' }] } }],
      usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 1 },
    });
    send({
      candidates: [{ content: { parts: [{ text: ' upon a time' }] }, finishReason: 'STOP' }],
    });
    expect(geminiAdapter.finishStream(state, providerId)).toMatchObject([
      { type: 'finish', usage: { promptTokens: 12, completionTokens: null } },
    ]);
  });

  it('finishes a prompt blocked at the start of the stream as content_filter', () => {
    const state = geminiAdapter.createStreamState();
    const events = geminiAdapter.transformStreamEvent(
      state,
      {
        data: JSON.stringify({
          promptFeedback: { blockReason: 'PROHIBITED_CONTENT' },
          usageMetadata: { promptTokenCount: 7 },
        }),
      },
      providerId,
    );
    expect(events).toEqual([]);
    expect(geminiAdapter.finishStream(state, providerId)).toEqual([
      {
        type: 'finish',
        finishReason: 'content_filter',
        rawFinishReason: 'PROHIBITED_CONTENT',
        stopSequence: null,
        usage: { promptTokens: 7, completionTokens: 0 },
      },
    ]);
  });
});
