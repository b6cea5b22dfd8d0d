/** Canonical response → Gemini `GenerateContentResponse`, and canonical usage → `usageMetadata`. */
import type { CanonicalResponse, PricedFinish } from '../../canonical/model';
import { toGeminiFinishReason } from './finish-reason';

/** Response ids are the trace id's hex, so the two can be matched. */
export const responseId = (traceId: string) => traceId.slice(0, 16);

/** Tool arguments are JSON text canonically; this form wants the object (an empty one if broken). */
export function functionArgs(argumentsText: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/**
 * @see https://ai.google.dev/api/generate-content#UsageMetadata
 */
export function toUsageMetadata(finish: PricedFinish) {
  const { promptTokens, completionTokens } = finish.usage;
  return {
    promptTokenCount: promptTokens,
    candidatesTokenCount: completionTokens,
    totalTokenCount: promptTokens + completionTokens,
  };
}

export function toGenerateContentResponse(
  response: CanonicalResponse,
  model: string,
  traceId: string,
) {
  const parts: Array<Record<string, unknown>> = [];
  if (response.text !== '' || response.toolCalls.length === 0) parts.push({ text: response.text });
  for (const call of response.toolCalls)
    parts.push({ functionCall: { name: call.name, args: functionArgs(call.arguments) } });
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
