/**
 * A whole Gemini answer → canonical events. The first candidate is the answer (the gateway never
 * asks for more); its parts become text and tool calls, and its `finishReason` and the usage end it.
 * @see https://ai.google.dev/api/generate-content#generatecontentresponse
 */
import type { CanonicalEvent, ReportedUsage } from '../../canonical/model';
import { sealSignature } from '../../canonical/reasoning-signature';
import { inBandError, malformed } from './error-mapping';
import {
  mapBlockReason,
  mapFinishReason,
  type MappedFinishReason,
} from './finish-reason-to-canonical';
import {
  errorBodySchema,
  generateContentResponseSchema,
  type GenerateContentResponse,
  type ResponsePart,
  type UsageMetadata,
} from './wire-schema';

export function fromGeminiResponse(body: unknown, providerId: string): CanonicalEvent[] {
  const response = readResponse(body, providerId, 'an answer');
  const candidate = response.candidates?.[0];
  const usage = toUsage(response.usageMetadata);
  if (candidate === undefined) {
    // A refused prompt gets no candidate at all, only the reason it was blocked.
    const blockReason = response.promptFeedback?.blockReason;
    if (blockReason === undefined)
      throw malformed(providerId, 'The provider answered without a candidate or a block reason.');
    return [finishEvent(mapBlockReason(blockReason), usage)];
  }
  const events = toEvents(candidate.content?.parts ?? [], createCallIds(), providerId);
  const madeToolCalls = events.some((event) => event.type === 'tool-call');
  events.push(finishEvent(mapFinishReason(candidate.finishReason, madeToolCalls), usage));
  return events;
}

/** One response (a whole answer or a stream chunk), or the error it carries instead. */
export function readResponse(
  body: unknown,
  providerId: string,
  what: string,
): GenerateContentResponse {
  const error = errorBodySchema.safeParse(body);
  if (error.success) throw inBandError(error.data.error, providerId);
  const parsed = generateContentResponseSchema.safeParse(body);
  if (!parsed.success)
    throw malformed(providerId, `The provider sent ${what} the gateway cannot read.`);
  return parsed.data;
}

/**
 * Ids for function calls. The vendor gives an id only sometimes; a call without one is
 * `call_<n>`, n its position among the answer's calls, and no two calls of an answer share an id.
 */
export type CallIds = { count: number; used: Set<string> };

export const createCallIds = (): CallIds => ({ count: 0, used: new Set() });

function nextCallId(ids: CallIds, given: string | undefined): string {
  const base = given || `call_${ids.count}`;
  ids.count += 1;
  let id = base;
  for (let suffix = 1; ids.used.has(id); suffix += 1) id = `${base}_${suffix}`;
  ids.used.add(id);
  return id;
}

/**
 * Parts → events, in order; parts the gateway does not use are skipped. A thought summary is
 * reasoning text. A `thoughtSignature` closes the reasoning before it, sealed for this provider
 * (canonical/reasoning-signature.ts): the vendor puts it on a thought, or on the call or text
 * after the thoughts, or alone on an empty text part.
 * @see https://ai.google.dev/gemini-api/docs/thought-signatures
 */
export function toEvents(
  parts: ResponsePart[],
  ids: CallIds,
  providerId: string,
): CanonicalEvent[] {
  const events: CanonicalEvent[] = [];
  for (const part of parts) {
    const signature =
      part.thoughtSignature !== undefined && part.thoughtSignature !== ''
        ? { signature: sealSignature(providerId, part.thoughtSignature) }
        : {};
    if (part.thought) {
      if (part.text || signature.signature)
        events.push({ type: 'reasoning-delta', text: part.text ?? '', ...signature });
      continue;
    }
    if (signature.signature) events.push({ type: 'reasoning-delta', text: '', ...signature });
    if (part.functionCall) {
      events.push({
        type: 'tool-call',
        id: nextCallId(ids, part.functionCall.id),
        name: part.functionCall.name,
        arguments: JSON.stringify(part.functionCall.args ?? {}),
      });
    } else if (part.text) {
      events.push({ type: 'text-delta', text: part.text });
    }
  }
  return events;
}

/**
 * Thinking tokens are billed as output but counted apart from `candidatesTokenCount`, so they are
 * added to it; `promptTokenCount` already includes cached content.
 * @see https://ai.google.dev/api/generate-content#UsageMetadata
 */
export function toUsage(metadata: UsageMetadata | null | undefined): ReportedUsage | null {
  if (!metadata) return null;
  // The vendor leaves a count of 0 out (proto3 JSON): no output count is 0 output (and 0 for
  // text that was delivered is no report, to the pipeline). No prompt is ever 0 tokens, so a
  // missing prompt count is unreported.
  return {
    promptTokens: metadata.promptTokenCount ?? null,
    completionTokens: (metadata.candidatesTokenCount ?? 0) + (metadata.thoughtsTokenCount ?? 0),
    ...(metadata.cachedContentTokenCount && {
      cacheReadTokens: metadata.cachedContentTokenCount,
    }),
    ...(metadata.thoughtsTokenCount && { reasoningTokens: metadata.thoughtsTokenCount }),
  };
}

export function finishEvent(
  reason: MappedFinishReason,
  usage: ReportedUsage | null,
): CanonicalEvent {
  return {
    type: 'finish',
    finishReason: reason.unified,
    rawFinishReason: reason.raw,
    // The vendor never says which stop sequence matched.
    stopSequence: null,
    usage,
  };
}
