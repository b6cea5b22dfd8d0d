/**
 * The Gemini form (vendor B): `POST /v1beta/models/{model}:generateContent`,
 * `:streamGenerateContent` (`?alt=sse` as the vendor's clients send it, else one streamed JSON
 * array), `:countTokens`, and the embeddings `:embedContent` and `:batchEmbedContents`, and the
 * same under `/v1/models/…`. `{model}` is a catalog id, which
 * holds a `/` and maybe a `:variant` (the vendor's client puts a name with a slash into the path
 * as it is: `models/sim/chat-standard:generateContent`), or, where unambiguous, a bare model
 * name; `/v1beta/{author}/{model}:{method}` (and `/v1/…`) is the same route for a catalog id.
 * Anything else under `/v1beta` is a 404 in this form's shape.
 */
import { countPromptTokens } from '../canonical/token-count';
import { invalidRequest, notFound } from '../errors';
import { geminiForm } from '../forms/gemini';
import { geminiEmbeddingsForm } from '../forms/gemini/embeddings';
import { toCanonicalRequest } from '../forms/gemini/request-converter';
import { countTokensRequestSchema } from '../forms/gemini/request-schema';
import { parseBody } from '../forms/validation';
import type { Router } from '../http/router';
import { serveCountTokens } from './count-tokens';
import { serveEmbeddings } from './embeddings';
import { serveInference } from './inference';
import { withErrors, type GatewayParts } from './route-kit';

/**
 * `models/{model}:{method}`, or `{author}/{model}:{method}` without `models/` (the AI SDK's
 * Google provider puts a model id holding a slash into the path as it is); a bare name needs
 * `models/`. Other paths under `/v1/models/` are the catalog's (404 there).
 */
const MODEL_METHOD_PATH =
  /^\/(?:v1beta|v1)\/(?<target>(?:models\/[^?#]+|[^/?#:]+\/[^?#]+):[A-Za-z]*)$/;
const ANY_V1BETA_PATH = /^\/v1beta(?:\/.*)?$/;
const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

type ModelMethod =
  | 'generateContent'
  | 'streamGenerateContent'
  | 'countTokens'
  | 'embedContent'
  | 'batchEmbedContents';
const MODEL_METHODS: ModelMethod[] = [
  'generateContent',
  'streamGenerateContent',
  'countTokens',
  'embedContent',
  'batchEmbedContents',
];

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
    withErrors(geminiForm.errorBody, async (context) => {
      const { modelName, method } = parseModelTarget(context.params.target ?? '');
      const resolve = () => parts.catalog.resolve(modelName, { allowBareName: true });

      if (method === 'countTokens') {
        await serveCountTokens(parts, context, 'gemini', (raw) => {
          const model = resolve();
          const body = parseBody(countTokensRequestSchema, raw);
          const counted =
            body.generateContentRequest ??
            (body.contents ? { contents: body.contents } : undefined);
          if (!counted)
            throw invalidRequest(
              "Invalid field 'contents': give contents or a generateContentRequest to count.",
            );
          return { totalTokens: countPromptTokens(toCanonicalRequest(counted, model.id, false)) };
        });
        return;
      }
      if (method === 'embedContent' || method === 'batchEmbedContents') {
        await serveEmbeddings(parts, geminiEmbeddingsForm, context, () => ({
          model: resolve().id,
          method,
          url: context.url,
        }));
        return;
      }
      await serveInference(parts, geminiForm, context, () => ({
        model: resolve().id,
        stream: method === 'streamGenerateContent',
        url: context.url,
      }));
    }),
  );

  // Registered after the real routes, so it answers only what they do not.
  const unknownPath = withErrors(geminiForm.errorBody, ({ request, url }) => {
    throw notFound(
      `No route ${request.method} ${url.pathname}. Gemini-form routes are POST /v1beta/models/{model}:{method}.`,
    );
  });
  for (const method of ALL_METHODS) router.add(method, ANY_V1BETA_PATH, unknownPath);
}
