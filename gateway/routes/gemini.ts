/**
 * The Gemini form (vendor B): `POST /v1beta/models/{model}:generateContent`,
 * `:streamGenerateContent` (`?alt=sse` as the vendor's clients send it, else one streamed JSON
 * array) and `:countTokens`, and the same under `/v1/models/…`. `{model}` is a catalog id, which
 * holds a `/` and maybe a `:variant` (the vendor's client puts a name with a slash into the path
 * as it is: `models/sim/chat-standard:generateContent`), or, where unambiguous, a bare model
 * name. Anything else under `/v1beta` is a 404 in this form's shape.
 */
import { authenticate } from '../auth/authenticate';
import { gatherResponse } from '../canonical/model';
import { countPromptTokens } from '../canonical/token-count';
import { invalidRequest, notFound, toGatewayError } from '../errors';
import { geminiErrorBody } from '../forms/gemini/error-shape';
import { toCanonicalRequest } from '../forms/gemini/request-converter';
import {
  countTokensRequestSchema,
  generateContentRequestSchema,
} from '../forms/gemini/request-schema';
import { toGenerateContentResponse } from '../forms/gemini/response-converter';
import { writeGeminiStream } from '../forms/gemini/stream-transform';
import { parseBody } from '../forms/validation';
import { readJsonBody } from '../http/read-body';
import { sendJson } from '../http/respond';
import type { Router } from '../http/router';
import { startInference, withErrors, type ErrorWriter, type GatewayParts } from './route-kit';

export const writeGeminiError: ErrorWriter = (error, context) => ({
  body: geminiErrorBody(error, context.traceId),
});

const MODEL_METHOD_PATH = /^\/(?:v1beta|v1)\/models\/(?<target>.+)$/;
const ANY_V1BETA_PATH = /^\/v1beta(?:\/.*)?$/;
const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

type ModelMethod = 'generateContent' | 'streamGenerateContent' | 'countTokens';
const MODEL_METHODS: ModelMethod[] = ['generateContent', 'streamGenerateContent', 'countTokens'];

/** `sim/chat-standard:free:generateContent` → the model name and the method (after the last `:`). */
export function parseModelTarget(target: string): { modelName: string; method: ModelMethod } {
  let decoded: string;
  try {
    decoded = decodeURIComponent(target);
  } catch {
    throw invalidRequest('The model name in the path is not valid percent-encoding.');
  }
  const colon = decoded.lastIndexOf(':');
  const method = colon > 0 ? decoded.slice(colon + 1) : '';
  if (!MODEL_METHODS.includes(method as ModelMethod)) {
    throw notFound(
      `No method '${method.slice(0, 64)}' on models here. Use models/{model}:generateContent, ` +
        ':streamGenerateContent or :countTokens.',
    );
  }
  // The vendor's resource names may repeat the collection (`models/…`); the catalog id does not.
  const modelName = decoded.slice(0, colon).replace(/^models\//, '');
  return { modelName, method: method as ModelMethod };
}

export function addGeminiRoutes(router: Router, parts: GatewayParts): void {
  router.add(
    'POST',
    MODEL_METHOD_PATH,
    withErrors(writeGeminiError, async (context) => {
      const { request, response, url, traceId, params } = context;
      const { modelName, method } = parseModelTarget(params.target ?? '');
      const key = authenticate(request, url, 'gemini', parts.registry);
      const raw = await readJsonBody(request, parts.config.maxBodyBytes);
      const model = parts.catalog.resolve(modelName, { allowBareName: true });

      if (method === 'countTokens') {
        // Counting runs no model and costs nothing, so it needs a known key but not a funded one.
        const body = parseBody(countTokensRequestSchema, raw);
        const counted =
          body.generateContentRequest ?? (body.contents ? { contents: body.contents } : undefined);
        if (!counted)
          throw invalidRequest(
            "Invalid field 'contents': give contents or a generateContentRequest to count.",
          );
        const canonical = toCanonicalRequest(counted, model.id, false);
        sendJson(response, 200, { totalTokens: countPromptTokens(canonical) });
        return;
      }

      const body = parseBody(generateContentRequestSchema, raw);
      const stream = method === 'streamGenerateContent';
      const canonical = toCanonicalRequest(body, model.id, stream);

      const run = startInference(parts, context, key, canonical, 'gemini');

      if (stream) {
        await writeGeminiStream(
          response,
          run.events,
          {
            model: run.model.id,
            traceId,
            framing: url.searchParams.get('alt') === 'sse' ? 'sse' : 'json_array',
          },
          (error) => geminiErrorBody(error, traceId),
          toGatewayError,
        );
        return;
      }
      const answer = await gatherResponse(run.events);
      sendJson(response, 200, toGenerateContentResponse(answer, run.model.id, traceId));
    }),
  );

  // Registered after the real routes, so it answers only what they do not.
  const unknownPath = withErrors(writeGeminiError, ({ request, url }) => {
    throw notFound(
      `No route ${request.method} ${url.pathname}. Gemini-form routes are POST /v1beta/models/{model}:{method}.`,
    );
  });
  for (const method of ALL_METHODS) router.add(method, ANY_V1BETA_PATH, unknownPath);
}
