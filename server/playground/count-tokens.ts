/**
 * `POST /api/count-tokens`: the playground's prompt counted by the gateway's own tokenizer, through
 * `POST /v1/responses/input_tokens` with the profile's key (free: no model runs). The chat
 * request is sent in the Responses form, as `api: "responses"` sends it.
 */
import { Router } from 'express';
import { toResponsesRequest } from '../../contract/responses-form';
import { chatRequestSchema, tokenCountSchema, type TokenCount } from '../../contract/workbench-api';
import { abortOnClientClose } from '../core/client-close';
import type { WorkbenchContext } from '../core/context';
import { gatewayErrorFailure, gatewayShapeFailure, parseInput } from '../core/errors';
import { parseJsonOrNull } from '../core/gateway-client';

export function createCountTokensRouter(context: WorkbenchContext): Router {
  const router = Router();
  const { gateway, profiles } = context;

  router.post('/count-tokens', async (request, response) => {
    const input = parseInput(chatRequestSchema, request.body, 'body');
    const signal = abortOnClientClose(response);
    const upstream = await gateway.request({
      method: 'POST',
      path: '/v1/responses/input_tokens',
      key: profiles.keyOf(input.profile),
      json: toResponsesRequest({ ...input.request, stream: false }).body,
      signal,
    });
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
      const parsed = json ? tokenCountSchema.safeParse(json.value) : null;
      if (!parsed?.success) {
        throw gatewayShapeFailure(
          'The gateway’s token count does not have the expected shape (input_tokens).',
          upstream.status,
          upstream.cfRay,
        );
      }
      const result: TokenCount = { input_tokens: parsed.data.input_tokens };
      response.json(result);
    } finally {
      upstream.abort();
    }
  });
  return router;
}
