/**
 * Embeddings, in every form that has them: `POST /v1/embeddings` (OpenAI's shape) here, and the
 * Gemini form's `:embedContent` and `:batchEmbedContents` (routes/gemini.ts). The same steps as
 * inference (the key checked before the body is read, its slots, rate limits, admission,
 * reservation and record), with the embeddings operation: the answer is written whole.
 */
import { triedAttempts } from '../../contract/routing';
import type { EmbeddingForm, EmbeddingTarget } from '../forms/embedding-form';
import {
  embeddingsForm,
  embeddingsRequestSchema,
  embeddingsResponseSchema,
} from '../forms/openai/embeddings-form';
import { sendJson } from '../http/respond';
import type { RouteContext } from '../http/router';
import { INFERENCE_ERRORS, receiveRequest, type ReceiveParts } from './inference';
import { addRoute, jsonContent, named, type RouteDoc, type RouteFamily } from './route-doc';
import { withErrors, type GatewayParts } from './route-kit';

const createEmbeddings: RouteDoc = {
  operationId: 'createEmbeddings',
  metricsRoute: 'embeddings',
  method: 'POST',
  path: '/v1/embeddings',
  summary: 'Embeddings',
  description: "OpenAI's embeddings shape, for the catalog's embedding models.",
  tag: 'Embeddings',
  auth: 'chat_completions',
  body: named('EmbeddingsRequest', embeddingsRequestSchema),
  responses: {
    200: jsonContent(
      'The vectors; `usage.cost` is the charge in USD.',
      named('Embeddings', embeddingsResponseSchema),
    ),
  },
  errors: { form: 'gateway', statuses: INFERENCE_ERRORS },
};

export const embeddingRoutes: RouteFamily<'pipeline' | keyof ReceiveParts> = {
  routes: [createEmbeddings],
  add(router, parts) {
    addRoute(
      router,
      createEmbeddings,
      withErrors(embeddingsForm.errorBody, (context) =>
        serveEmbeddings(parts, embeddingsForm, context, () => ({ url: context.url })),
      ),
    );
  },
};

/** The embeddings steps; `target` is read after the key is checked (it may name a missing model). */
export async function serveEmbeddings(
  parts: Pick<GatewayParts, 'pipeline' | keyof ReceiveParts>,
  form: EmbeddingForm,
  context: RouteContext,
  target: () => EmbeddingTarget,
): Promise<void> {
  const received = await receiveRequest(parts, form.auth, context, target, (body, resolved) =>
    form.toCanonical(body, resolved),
  );
  const run = await parts.pipeline.embed({
    key: received.key,
    request: received.request,
    form: form.name,
    traceId: context.traceId,
    signal: received.signal,
    timing: context.timing,
    sessionId: received.sessionId,
    holds: received.holds,
  });
  context.response.setHeader('x-gateway-provider', run.route.providerId);
  // Routes the request's preferences skipped were not attempts.
  const tried = triedAttempts(run.attempts).length;
  if (tried > 1) context.response.setHeader('x-gateway-attempts', String(tried));
  sendJson(
    context.response,
    200,
    form.toResponse(
      {
        model: run.model.id,
        vectors: run.vectors,
        promptTokens: run.promptTokens,
        costUsd: run.costUsd,
        request: received.request,
      },
      received.target,
    ),
  );
}
