/**
 * Gemini's `streamGenerateContent?alt=sse` → canonical events. Each event's data is a whole
 * `GenerateContentResponse` holding the new parts; text and function calls go out as they arrive.
 * The finish waits for the end of the stream, since the usage may come after the finish reason.
 * @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
import type { CanonicalEvent } from '../../canonical/model';
import type { UpstreamSseEvent } from '../upstream/adapter';
import { UpstreamError } from '../upstream-error';
import { malformed } from './error-mapping';
import { mapBlockReason, mapFinishReason } from './finish-reason-to-canonical';
import {
  createCallIds,
  finishEvent,
  readResponse,
  toEvents,
  toUsage,
  type CallIds,
} from './response-to-canonical';
import type { UsageMetadata } from './wire-schema';
import { finalUsage } from '../upstream/reported-count';

export type GeminiStreamState = {
  /** Function call ids, counted across the whole stream. */
  callIds: CallIds;
  madeToolCalls: boolean;
  /**
   * The latest finish reason, or the reason the prompt was blocked; the answer is whole once
   * there is one.
   */
  finish: { reason: string; promptBlocked: boolean } | null;
  /** The latest usage. Each chunk's is the running total, so it replaces, never adds. */
  usage: UsageMetadata | null;
  /** Output arrived after the latest usage: its completion count is a running one, not final. */
  outputSinceUsage: boolean;
};

export const createGeminiStreamState = (): GeminiStreamState => ({
  callIds: createCallIds(),
  madeToolCalls: false,
  finish: null,
  usage: null,
  outputSinceUsage: false,
});

export function transformGeminiEvent(
  state: GeminiStreamState,
  event: UpstreamSseEvent,
  providerId: string,
): CanonicalEvent[] {
  const data = event.data.trim();
  if (data === '') return [];
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    throw malformed(providerId, 'The provider sent a chunk that is not JSON.');
  }
  const response = readResponse(chunk, providerId, 'a chunk');
  // A chunk's usage counts the parts it carries; parts in a chunk without one are not counted.
  if (response.usageMetadata) {
    state.usage = response.usageMetadata;
    state.outputSinceUsage = false;
  } else if ((response.candidates?.[0]?.content?.parts ?? []).some((part) => part.text !== '')) {
    state.outputSinceUsage = true;
  }
  const blockReason = response.promptFeedback?.blockReason;
  if (blockReason !== undefined) state.finish = { reason: blockReason, promptBlocked: true };

  const candidate = response.candidates?.[0];
  if (candidate === undefined) return [];
  const events = toEvents(candidate.content?.parts ?? [], state.callIds, providerId);
  if (events.some((converted) => converted.type === 'tool-call')) state.madeToolCalls = true;
  // The unspecified value is the proto default: it does not say the answer ended.
  if (candidate.finishReason && candidate.finishReason !== 'FINISH_REASON_UNSPECIFIED') {
    state.finish = { reason: candidate.finishReason, promptBlocked: false };
  }
  return events;
}

/** What the stream has reported so far (each chunk carries the running usage). */
export const geminiUsageSoFar = (state: GeminiStreamState) => toUsage(state.usage);

export function finishGeminiStream(state: GeminiStreamState, providerId: string): CanonicalEvent[] {
  if (state.finish === null) {
    throw new UpstreamError(
      'cut',
      providerId,
      'The provider’s stream ended before its answer did.',
    );
  }
  const reason = state.finish.promptBlocked
    ? mapBlockReason(state.finish.reason)
    : mapFinishReason(state.finish.reason, state.madeToolCalls);
  return [finishEvent(reason, finalUsage(toUsage(state.usage), state.outputSinceUsage))];
}
