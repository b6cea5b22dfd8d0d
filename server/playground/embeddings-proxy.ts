/**
 * `POST /api/embeddings`: the inputs embedded through the gateway's `POST /v1/embeddings` with
 * the profile's key, as floats. The answer is read, checked and passed on in input order with
 * its usage, charge and trace id; a gateway error becomes the BFF's API error, keys masked.
 */
import { Router } from 'express';
import { embeddingsResponseSchema } from '../../contract/gateway';
import { embeddingsRequestSchema, type EmbeddingsResult } from '../../contract/workbench-api';
import { abortOnClientClose } from '../core/client-close';
import type { WorkbenchContext } from '../core/context';
import { gatewayErrorFailure, gatewayShapeFailure, parseInput } from '../core/errors';
import { parseJsonOrNull, routingOf } from '../core/gateway-client';

export function createEmbeddingsRouter(context: WorkbenchContext): Router {
  const router = Router();
  const { gateway, profiles } = context;

  router.post('/embeddings', async (request, response) => {
    const input = parseInput(embeddingsRequestSchema, request.body, 'body');
    const key = profiles.keyOf(input.profile);
    const signal = abortOnClientClose(response);
    const upstream = await gateway.request({
      method: 'POST',
      path: '/v1/embeddings',
      key,
      // Floats, not base64: the browser compares the vectors as numbers.
      json: { ...input.request, encoding_format: 'float' },
      signal,
    });
    response.locals.cfRay = upstream.cfRay;
    try {
      const text = await gateway.readText(upstream, signal);
      const json = parseJsonOrNull(text);
      if (upstream.status < 200 || upstream.status >= 300) {
        throw gatewayErrorFailure(
          upstream.status,
          json ? json.value : text,
          upstream.cfRay,
          profiles.allKeys(),
        );
      }
      const parsed = json ? embeddingsResponseSchema.safeParse(json.value) : null;
      if (!parsed?.success || parsed.data.data.length !== input.request.input.length) {
        throw gatewayShapeFailure(
          'The gateway’s embeddings answer does not have the expected shape (one vector per input).',
          upstream.status,
          upstream.cfRay,
        );
      }
      if (upstream.cfRay) profiles.rememberTrace(input.profile, upstream.cfRay);
      const answer = parsed.data;
      const result: EmbeddingsResult = {
        meta: {
          upstream_status: upstream.status,
          cf_ray: upstream.cfRay,
          ttfb_ms: upstream.ttfbMs,
          total_ms: upstream.elapsedMs(),
          ...routingOf(upstream.headers),
        },
        model: answer.model ?? input.request.model,
        data: answer.data
          .map((entry) => ({ index: entry.index, embedding: entry.embedding }))
          .sort((left, right) => left.index - right.index),
        usage: {
          prompt_tokens: answer.usage?.prompt_tokens ?? 0,
          total_tokens: answer.usage?.total_tokens ?? answer.usage?.prompt_tokens ?? 0,
          cost: answer.usage?.cost ?? null,
        },
      };
      response.json(result);
    } finally {
      upstream.abort();
    }
  });
  return router;
}
