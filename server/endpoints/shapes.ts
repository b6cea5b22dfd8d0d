/**
 * What each endpoint's right answer looks like: small predicates over a collected gateway
 * answer, lenient on everything but the fields that make the entry what it is.
 */
import {
  balanceSchema,
  generationRecordSchema,
  modelEndpointListSchema,
  modelEndpointSchema,
} from '../../contract/gateway';
import type { CollectedResponse } from '../core/gateway-client';

export function object(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

export function jsonOf(answer: CollectedResponse): Record<string, unknown> | null {
  return answer.json ? object(answer.json.value) : null;
}

export const hasModelList = (answer: CollectedResponse) => Array.isArray(jsonOf(answer)?.data);

/** The provider ids of a model's endpoints list, or null when the answer is not one. */
export const providersOf = (answer: CollectedResponse): string[] | null => {
  const list = modelEndpointListSchema.safeParse(answer.json?.value);
  if (!list.success) return null;
  return list.data.data.flatMap((entry) => {
    const endpoint = modelEndpointSchema.safeParse(entry);
    return endpoint.success ? [endpoint.data.provider] : [];
  });
};

export const isBalance = (answer: CollectedResponse) =>
  balanceSchema.safeParse(answer.json?.value).success;

export const isGenerationRecord = (answer: CollectedResponse) =>
  generationRecordSchema.safeParse(answer.json?.value).success;

export const isChatCompletion = (answer: CollectedResponse) => {
  const body = jsonOf(answer);
  return body?.object === 'chat.completion' && Array.isArray(body.choices);
};

export const isMessage = (answer: CollectedResponse) => {
  const body = jsonOf(answer);
  return body?.type === 'message' && Array.isArray(body.content);
};

export const isGeminiAnswer = (answer: CollectedResponse) =>
  Array.isArray(jsonOf(answer)?.candidates);

export const isResponse = (answer: CollectedResponse) => jsonOf(answer)?.object === 'response';

export const isEmbeddingList = (answer: CollectedResponse) => {
  const data = jsonOf(answer)?.data;
  return Array.isArray(data) && Array.isArray(object(data[0])?.embedding);
};

export const isChunkStream = (answer: CollectedResponse) =>
  answer.contentType.includes('text/event-stream') &&
  answer.text.split('\n').some((line) => {
    if (!line.startsWith('data:')) return false;
    try {
      return object(JSON.parse(line.slice(5)))?.object === 'chat.completion.chunk';
    } catch {
      return false;
    }
  });
