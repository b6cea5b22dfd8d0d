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
import { parseInput, readGatewayAnswer } from '../core/errors';

export function createCountTokensRouter(context: WorkbenchContext): Router {
  const router = Router();
  const { gateway, profiles } = context;

  router.post('/count-tokens', async (request, response) => {
    const input = parseInput(chatRequestSchema, request.body, 'body');
    const answer = await gateway.collect({
      method: 'POST',
      path: '/v1/responses/input_tokens',
      key: profiles.keyOf(input.profile),
      json: toResponsesRequest({ ...input.request, stream: false }).body,
      signal: abortOnClientClose(response),
    });
    response.locals.cfRay = answer.cfRay;
    const counted = readGatewayAnswer(
      answer,
      tokenCountSchema,
      'The gateway’s token count does not have the expected shape (input_tokens).',
      profiles.allKeys(),
    );
    const result: TokenCount = { input_tokens: counted.input_tokens };
    response.json(result);
  });
  return router;
}
