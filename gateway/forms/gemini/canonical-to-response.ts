/** Canonical response → Gemini `GenerateContentResponse`, and canonical usage → `usageMetadata`. */
import { z } from 'zod';
import type { CanonicalResponse, PricedFinish } from '../../canonical/model';
import { sealReasoning, type SealedBlock } from '../../canonical/reasoning-signature';
import { brokenToolArguments, toolArguments, UNFINISHED } from '../tool-arguments';
import { toGeminiFinishReason } from './canonical-to-finish-reason';

const usageMetadataSchema = z.object({
  promptTokenCount: z.number().int(),
  candidatesTokenCount: z.number().int(),
  totalTokenCount: z.number().int(),
  cachedContentTokenCount: z.number().int().optional(),
  thoughtsTokenCount: z.number().int().optional(),
});

const partSchema = z.union([
  z.object({
    text: z.string(),
    thought: z.literal(true).optional(),
    thoughtSignature: z.string().optional(),
  }),
  z.object({
    /** `id`: the call's id, which the client sends back as `functionResponse.id`. */
    functionCall: z.object({
      name: z.string(),
      args: z.record(z.string(), z.unknown()),
      id: z.string(),
    }),
    thoughtSignature: z.string().optional(),
  }),
]);

const finishReasonSchema = z.enum(['STOP', 'MAX_TOKENS', 'SAFETY', 'OTHER']);

/**
 * One chunk of `streamGenerateContent` (canonical-to-stream.ts): the last one carries the
 * `finishReason` and `usageMetadata`. The OpenAPI document describes the form with these.
 */
export const generateContentChunkSchema = z.object({
  candidates: z.array(
    z.object({
      content: z.object({ parts: z.array(partSchema), role: z.literal('model') }),
      finishReason: finishReasonSchema.optional(),
      index: z.number().int(),
    }),
  ),
  usageMetadata: usageMetadataSchema.optional(),
  modelVersion: z.string(),
  responseId: z.string(),
});

/** What `toGenerateContentResponse` writes: a chunk with its finish and usage always there. */
export const generateContentResponseSchema = generateContentChunkSchema.extend({
  candidates: z.array(
    z.object({
      content: z.object({ parts: z.array(partSchema), role: z.literal('model') }),
      finishReason: finishReasonSchema,
      index: z.number().int(),
    }),
  ),
  usageMetadata: usageMetadataSchema,
});

/** Response ids are the trace id's hex, so the two can be matched. */
export const responseId = (traceId: string) => traceId.slice(0, 16);

/**
 * @see https://ai.google.dev/api/generate-content#UsageMetadata
 */
export function toUsageMetadata(finish: PricedFinish): z.output<typeof usageMetadataSchema> {
  const { promptTokens, completionTokens, cacheReadTokens = 0, reasoningTokens = 0 } = finish.usage;
  return {
    promptTokenCount: promptTokens,
    // The vendor counts thinking apart from the candidates; both are charged as output.
    candidatesTokenCount: completionTokens - reasoningTokens,
    totalTokenCount: promptTokens + completionTokens,
    // Of the prompt, what was read from cached content; the vendor leaves a 0 out.
    ...(cacheReadTokens > 0 && { cachedContentTokenCount: cacheReadTokens }),
    ...(reasoningTokens > 0 && { thoughtsTokenCount: reasoningTokens }),
  };
}

/**
 * Reasoning as the vendor's parts: its text as `thought: true` parts; once the block closes (its
 * signature or encrypted form arrives), the whole block sealed (`sealReasoning`: Gemini CLI sends
 * back only the signature, and Anthropic wants the text it signed) as `thoughtSignature` on the
 * part that follows, as the vendor places it. `block.text` is this piece's text, `blockText` the
 * whole block's so far. Returns the parts and the signature still waiting for a part.
 * @see https://ai.google.dev/gemini-api/docs/thought-signatures
 */
export function thoughtParts(
  block: SealedBlock,
  pending: string | undefined,
  blockText: string,
  keyId: string | undefined,
): { parts: Array<Record<string, unknown>>; pending: string | undefined } {
  const parts: Array<Record<string, unknown>> = [];
  if (block.text !== '') parts.push({ text: block.text, thought: true, ...signed(pending) });
  else if (pending !== undefined) parts.push({ text: '', thought: true, ...signed(pending) });
  const closed = block.signature !== undefined || block.encrypted !== undefined;
  return {
    parts,
    pending: closed ? sealReasoning({ ...block, text: blockText }, keyId) : undefined,
  };
}

/**
 * A call as this form writes it, with its id: a client sends it back as `functionResponse.id`, so
 * the result reaches the upstream under the id the upstream gave the call.
 * @see https://ai.google.dev/api/caching#FunctionCall
 */
export const functionCall = (
  call: { id: string; name: string },
  args: Record<string, unknown>,
) => ({
  name: call.name,
  args,
  id: call.id,
});

/** `thoughtSignature` on a part, when one is waiting. */
export const signed = (signature: string | undefined) =>
  signature === undefined ? {} : { thoughtSignature: signature };

export function toGenerateContentResponse(
  response: CanonicalResponse,
  model: string,
  traceId: string,
  keyId?: string,
) {
  // A refusal (an OpenAI-compatible upstream's `refusal`) has no field here: it is text, as it is
  // in the stream.
  const text = response.text + (response.refusal ?? '');
  const calls: Array<Record<string, unknown>> = [];
  // A call cut short by max_tokens (`UNFINISHED`) is left out, plain and streamed alike: this form
  // has no way to carry unfinished arguments, and `{}` or a guessed completion would be a call the
  // model never made; finishReason MAX_TOKENS says the answer was cut.
  response.toolCalls.forEach((call, index) => {
    const args = toolArguments(call.arguments, call.name);
    if (args !== UNFINISHED) calls.push({ functionCall: functionCall(call, args) });
    else if (response.finish.finishReason !== 'length' || index !== response.toolCalls.length - 1)
      throw brokenToolArguments(call.name);
  });
  const parts: Array<Record<string, unknown>> = [];
  let pending: string | undefined;
  for (const block of response.reasoning ?? []) {
    const thought = thoughtParts(block, pending, block.text, keyId);
    parts.push(...thought.parts);
    pending = thought.pending;
  }
  if (text !== '' || calls.length === 0) parts.push({ text });
  parts.push(...calls);
  // The last signature rides on the first part after the reasoning.
  const after = parts.find((part) => part.thought !== true);
  if (pending !== undefined && after) after.thoughtSignature = pending;
  return {
    candidates: [
      {
        content: { parts, role: 'model' },
        finishReason: toGeminiFinishReason(response.finish.finishReason),
        index: 0,
      },
    ],
    usageMetadata: toUsageMetadata(response.finish),
    modelVersion: model,
    responseId: responseId(traceId),
  };
}
