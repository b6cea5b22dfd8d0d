/**
 * OpenAI's embeddings endpoint as an upstream: `POST {base_url}/embeddings`, at most 2,048 inputs
 * a call. The gateway always asks for floats (it encodes base64 itself for clients that ask), and
 * reads back only the vectors, their indices and the prompt count.
 * @see https://platform.openai.com/docs/api-reference/embeddings/create
 */
import { z } from 'zod';
import type { EmbeddingAdapter } from '../upstream/adapter';
import { reportedCount } from '../upstream/reported-count';
import { trimBase } from '../upstream/request-fields';
import { UpstreamError } from '../upstream-error';
import { chatCompletionsHeaders } from './api';

/** OpenAI's limit on inputs per request. */
export const OPENAI_EMBEDDING_BATCH = 2_048;

const embeddingsResponseSchema = z.looseObject({
  data: z.array(z.looseObject({ index: z.number().int().min(0), embedding: z.array(z.number()) })),
  usage: z.looseObject({ prompt_tokens: reportedCount }).nullish().catch(null),
});

export const openAiEmbeddings: EmbeddingAdapter = {
  batchLimit: OPENAI_EMBEDDING_BATCH,
  buildCall: (request, route, config) => ({
    url: `${trimBase(config.baseUrl)}/embeddings`,
    headers: chatCompletionsHeaders(config),
    body: {
      model: route.upstreamModel,
      input: request.inputs,
      encoding_format: 'float',
      ...(request.dimensions !== null && { dimensions: request.dimensions }),
      ...(request.user !== undefined && { user: request.user }),
    },
  }),
  fromResponse(body, providerId, inputs) {
    const parsed = embeddingsResponseSchema.safeParse(body);
    if (!parsed.success || parsed.data.data.length !== inputs) {
      throw new UpstreamError(
        'malformed',
        providerId,
        `The provider's embeddings answer does not hold one vector for each of the ${inputs} inputs.`,
      );
    }
    const vectors = new Array<number[]>(inputs);
    for (const item of parsed.data.data) vectors[item.index] = item.embedding;
    if (vectors.some((vector) => vector === undefined)) {
      throw new UpstreamError('malformed', providerId, 'The provider repeated an embedding index.');
    }
    return { vectors, promptTokens: parsed.data.usage?.prompt_tokens ?? null };
  },
};
