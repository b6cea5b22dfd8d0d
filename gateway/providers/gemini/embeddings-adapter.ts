/**
 * Gemini's embeddings as an upstream: `models/{model}:batchEmbedContents`, at most 100 requests a
 * batch, each one text. It reports no token count: the pipeline counts, and marks the usage
 * estimated. Token-id inputs have no Gemini form and are refused before anything is sent.
 * @see https://ai.google.dev/api/embeddings#method:-models.batchembedcontents
 */
import { z } from 'zod';
import { invalidRequest } from '../../errors';
import type { EmbeddingAdapter } from '../upstream/adapter';
import { trimBase } from '../upstream/request-fields';
import { UpstreamError } from '../upstream-error';
import { geminiHeaders } from './api';

/** Gemini's limit on requests per `batchEmbedContents`. */
export const GEMINI_EMBEDDING_BATCH = 100;

const batchEmbedResponseSchema = z.looseObject({
  embeddings: z.array(z.looseObject({ values: z.array(z.number()) })),
});

export const geminiEmbeddings: EmbeddingAdapter = {
  batchLimit: GEMINI_EMBEDDING_BATCH,
  buildCall(request, route, config) {
    const name = route.upstreamModel.replace(/^models\//, '');
    const model = `models/${name}`;
    return {
      url: `${trimBase(config.baseUrl)}/v1beta/models/${encodeURIComponent(name)}:batchEmbedContents`,
      headers: geminiHeaders(config),
      body: {
        requests: request.inputs.map((input) => {
          if (typeof input !== 'string') {
            throw invalidRequest(
              `Provider '${config.id}' (gemini) embeds text only; send the inputs as strings, not token ids.`,
            );
          }
          return {
            model,
            content: { parts: [{ text: input }] },
            ...(request.dimensions !== null && { outputDimensionality: request.dimensions }),
          };
        }),
      },
    };
  },
  fromResponse(body, providerId, inputs) {
    const parsed = batchEmbedResponseSchema.safeParse(body);
    if (!parsed.success || parsed.data.embeddings.length !== inputs) {
      throw new UpstreamError(
        'malformed',
        providerId,
        `The provider's embeddings answer does not hold one vector for each of the ${inputs} inputs.`,
      );
    }
    return { vectors: parsed.data.embeddings.map((item) => item.values), promptTokens: null };
  },
};
