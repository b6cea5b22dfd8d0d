/**
 * The shared engine of every upstream provider kind: it sends the adapter's call through the
 * provider's pooled agent, reads a whole answer or splits a stream into server-sent events, and
 * hands each event to the adapter's stream transform as soon as it arrives (never batched). An
 * abort (the client left) cancels the upstream request at once and ends the stream quietly. What
 * an upstream can make the gateway spend is bounded here, for every kind alike: time (the
 * deadlines for the first event and the whole answer) and memory (the size of one event and of
 * a whole stream).
 */
import { createParser } from 'eventsource-parser';
import { byteSize } from '../../../contract/byte-size';
import { discardBody, first, readText } from '../../../contract/http-client';
import type {
  CanonicalEmbeddingRequest,
  CanonicalEvent,
  CanonicalRequest,
  EmbeddingResult,
  ReportedUsage,
} from '../../canonical/model';
import { clientLeft, GatewayError } from '../../errors';
import type { ModelRoute, Provider } from '../provider';
import { UpstreamError } from '../upstream-error';
import type { EmbeddingAdapter, ProviderAdapter, UpstreamSseEvent } from './adapter';
import { CallDeadline } from './call-deadlines';
import { cleanUpstreamMessage } from './clean-message';
import {
  createUpstreamAgent,
  postJson,
  postJsonWhole,
  type UpstreamAnswer,
  retryAfterSeconds,
  toUpstreamError,
} from './http-client';
import { inlineImageUrls, type ImageFetchPolicy } from './inline-images';
import { sameFormBody } from './request-fields';
import { defaultStreamLimits, type ProviderConfig } from './provider-config';

/** Error bodies are read this far; the message is all we need of them. */
const ERROR_BODY_BYTES = 64 * 1024;
/** A whole answer larger than this is refused rather than held in memory. */
const ANSWER_BYTES = 32 * 1024 * 1024;

export type UpstreamProvider = Provider & { close(): Promise<void> };

export function createUpstreamProvider<State>(
  config: ProviderConfig,
  adapter: ProviderAdapter<State>,
  imagePolicy: ImageFetchPolicy = { allowPrivateHosts: false },
): UpstreamProvider {
  const agent = createUpstreamAgent(config.timeouts);
  const limits = config.limits ?? defaultStreamLimits;
  const secrets = config.apiKey ? [config.apiKey] : [];
  const clean = (text: string) => cleanUpstreamMessage(text, secrets);
  const id = config.id;

  /** A non-2xx answer: the provider's own message, its status and when to try again. */
  const httpError = (status: number, text: string, headers: UpstreamAnswer['headers']) => {
    const read = adapter.readError(status, text);
    return new UpstreamError('http', id, clean(read.message || `HTTP ${status}`), {
      status,
      retryAfterSeconds: retryAfterSeconds(headers),
      upstreamType: read.type,
    });
  };

  async function* stream(
    request: CanonicalRequest,
    route: ModelRoute,
    signal: AbortSignal,
    onPartialUsage?: (usage: ReportedUsage) => void,
  ): AsyncGenerator<CanonicalEvent, void, undefined> {
    // A Gemini-form request to a Gemini upstream is the caller's own body: its `fileData` URIs
    // (Files API, or URLs Gemini fetches itself) go through unchanged, and nothing is fetched.
    const passesThroughAsIs = config.kind === 'gemini' && sameFormBody(request, 'gemini') !== null;
    const prepared =
      config.inlineImageUrls && !passesThroughAsIs
        ? await inlineImageUrls(request, imagePolicy, signal)
        : request;
    const call = adapter.buildCall(prepared, route, config);
    const deadline = new CallDeadline(config.timeouts, id);
    try {
      const upstreamCall = { agent, ...call, signal, providerId: id, deadline };
      /** What went wrong reading an answer, as the gateway says it: an answer it cannot read is malformed. */
      const asUpstreamFailure = (error: unknown) => {
        // An error inside an answer carries the upstream's own text, as a non-2xx body does: it
        // goes through the same cleaner, with the provider's key, whatever kind read it.
        if (error instanceof UpstreamError && error.failure === 'in_band') {
          return new UpstreamError('in_band', id, clean(error.message), error.details);
        }
        if (error instanceof UpstreamError || error instanceof GatewayError) return error;
        if (error instanceof SyntaxError || error instanceof TypeError) {
          return new UpstreamError(
            'malformed',
            id,
            'The provider sent a chunk the gateway cannot read.',
          );
        }
        return toUpstreamError(error, id, 'during');
      };
      const contentTypeOf = (headers: UpstreamAnswer['headers']) =>
        (first(headers['content-type']) ?? '').toLowerCase();

      if (!request.stream) {
        let whole;
        try {
          // An error's message is all that is needed of it; an answer that is not JSON is refused
          // from its headers, without reading it.
          whole = await postJsonWhole(upstreamCall, (status, headers) =>
            status < 200 || status > 299
              ? ERROR_BODY_BYTES
              : contentTypeOf(headers).includes('json')
                ? ANSWER_BYTES
                : 0,
          );
        } catch (error) {
          if (signal.aborted) return;
          throw error;
        }
        if (whole.status < 200 || whole.status > 299) {
          throw httpError(whole.status, whole.text, whole.headers);
        }
        const contentType = contentTypeOf(whole.headers);
        if (!contentType.includes('json')) {
          throw new UpstreamError(
            'malformed',
            id,
            `The provider answered with ${describe(contentType)}, not JSON.`,
          );
        }
        if (whole.truncated) {
          throw new UpstreamError(
            'malformed',
            id,
            'The provider’s answer is larger than the gateway accepts.',
          );
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(whole.text);
        } catch {
          throw new UpstreamError('malformed', id, 'The provider’s answer is not valid JSON.');
        }
        try {
          // The answer is here whole: only the time to read it is left.
          deadline.answerStarted();
          yield* adapter.fromResponse(parsed, id);
        } catch (error) {
          throw asUpstreamFailure(error);
        }
        return;
      }

      let answer;
      try {
        answer = await postJson(upstreamCall);
      } catch (error) {
        if (signal.aborted) return;
        throw error;
      }
      const { body } = answer;
      let state: State | null = null;
      try {
        if (answer.status < 200 || answer.status > 299) {
          const { text } = await readText(body, ERROR_BODY_BYTES);
          throw httpError(answer.status, text, answer.headers);
        }
        const contentType = contentTypeOf(answer.headers);
        if (!contentType.includes('text/event-stream')) {
          throw new UpstreamError(
            'malformed',
            id,
            `The provider answered with ${describe(contentType)}, not an event stream.`,
          );
        }
        state = adapter.createStreamState();
        const streamState = state;
        const pending: UpstreamSseEvent[] = [];
        let eventTooLarge = false;
        const parser = createParser({
          onEvent: (event) => pending.push({ event: event.event, data: event.data }),
          // The parser stops at this size and says so; other complaints (an unknown field) are
          // ignored, as browsers ignore them.
          maxBufferSize: limits.maxEventBytes,
          onError: (error) => {
            if (error.type === 'max-buffer-size-exceeded') eventTooLarge = true;
          },
        });
        const tooLarge = (what: string, limit: number) =>
          new UpstreamError(
            'malformed',
            id,
            `The provider sent ${what} longer than ${byteSize(limit)}.`,
          );
        const decoder = new TextDecoder();
        const drain = function* () {
          while (pending.length > 0) {
            for (const event of adapter.transformStreamEvent(streamState, pending.shift()!, id)) {
              // Comments, pings and role chunks make no event: they do not count as the answer.
              deadline.answerStarted();
              deadline.handedOver();
              yield event;
              deadline.takenBack();
            }
          }
        };
        let received = 0;
        for await (const chunk of body) {
          const bytes = chunk as Buffer;
          received += bytes.length;
          if (received > limits.maxStreamBytes) {
            throw tooLarge('a streamed answer', limits.maxStreamBytes);
          }
          parser.feed(decoder.decode(bytes, { stream: true }));
          // The events that arrived whole before an oversized one are still the answer's.
          yield* drain();
          if (eventTooLarge) throw tooLarge('an event', limits.maxEventBytes);
        }
        parser.feed(decoder.decode());
        yield* drain();
        if (eventTooLarge) throw tooLarge('an event', limits.maxEventBytes);
        // An upstream that ends without the blank line after its last event still sent that event.
        parser.reset({ consume: true });
        yield* drain();
        // The end of the answer counts as its first event too.
        deadline.answerStarted();
        yield* adapter.finishStream(streamState, id);
      } catch (error) {
        if (signal.aborted) return;
        throw asUpstreamFailure(error);
      } finally {
        // A stream left early (client gone, error) must not keep the socket busy.
        discardBody(body);
        // An answer that ends without its finish is still charged the prompt the upstream counted.
        const usage = state === null ? null : adapter.usageSoFar(state);
        if (usage !== null) onPartialUsage?.(usage);
      }
    } catch (error) {
      // Ended by a deadline, the call fails with whatever undici made of the abort: the deadline
      // is what ended it.
      throw deadline.expired ?? error;
    } finally {
      deadline.clear();
    }
  }

  /** One batch of inputs: a whole JSON answer, read under the call's deadlines. */
  async function embedBatch(
    embeddings: EmbeddingAdapter,
    request: CanonicalEmbeddingRequest,
    route: ModelRoute,
    signal: AbortSignal,
  ): Promise<EmbeddingResult> {
    const call = embeddings.buildCall(request, route, config);
    const deadline = new CallDeadline(config.timeouts, id);
    try {
      const whole = await postJsonWhole(
        { agent, ...call, signal, providerId: id, deadline },
        (status) => (status < 200 || status > 299 ? ERROR_BODY_BYTES : ANSWER_BYTES),
      );
      if (whole.status < 200 || whole.status > 299)
        throw httpError(whole.status, whole.text, whole.headers);
      if (whole.truncated) {
        throw new UpstreamError(
          'malformed',
          id,
          'The provider’s answer is larger than the gateway accepts.',
        );
      }
      deadline.answerStarted();
      let parsed: unknown;
      try {
        parsed = JSON.parse(whole.text);
      } catch {
        throw new UpstreamError('malformed', id, 'The provider’s answer is not valid JSON.');
      }
      return embeddings.fromResponse(parsed, id, request.inputs.length);
    } catch (error) {
      if (signal.aborted) throw clientLeft();
      throw deadline.expired ?? error;
    } finally {
      deadline.clear();
    }
  }

  /**
   * Big requests go up in batches of the upstream's limit, one after another (a burst of
   * parallel batches would meet the upstream's rate limit first); the counts are summed, and
   * unknown if any batch gave none.
   */
  async function embed(
    request: CanonicalEmbeddingRequest,
    route: ModelRoute,
    signal: AbortSignal,
  ): Promise<EmbeddingResult> {
    const embeddings = adapter.embeddings!;
    const vectors: number[][] = [];
    let promptTokens: number | null = 0;
    for (let start = 0; start < request.inputs.length; start += embeddings.batchLimit) {
      const inputs = request.inputs.slice(start, start + embeddings.batchLimit);
      const batch = await embedBatch(embeddings, { ...request, inputs }, route, signal);
      vectors.push(...batch.vectors);
      promptTokens =
        promptTokens === null || batch.promptTokens === null
          ? null
          : promptTokens + batch.promptTokens;
    }
    return { vectors, promptTokens };
  }

  return {
    id,
    kind: config.kind,
    stream,
    ...(adapter.embeddings && { embed }),
    close: () => agent.close(),
  };
}

const describe = (contentType: string) =>
  contentType === '' ? 'no content type' : `'${contentType.split(';')[0]}'`;
