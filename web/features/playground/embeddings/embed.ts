/** `POST /api/embeddings`: the fetcher and its mutation hook (the BFF holds the key). */
import { useMutation } from '@tanstack/react-query';
import {
  embeddingsResultSchema,
  type EmbeddingsRequest,
  type EmbeddingsResult,
} from '../../../../contract/workbench-api';
import { apiPost } from '../../../lib/api-client';

export function embed(body: EmbeddingsRequest, signal?: AbortSignal): Promise<EmbeddingsResult> {
  return apiPost('/api/embeddings', body, embeddingsResultSchema, { signal });
}

export function useEmbed() {
  return useMutation({ mutationFn: (body: EmbeddingsRequest) => embed(body) });
}
