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
import { z } from 'zod';
import { countPromptTokens } from '../canonical/token-count';
import { invalidRequest, notFound } from '../errors';
import { geminiForm } from '../forms/gemini';
import {
  batchEmbedContentsSchema,
  embedContentResponseSchema,
  embedContentSchema,
  geminiEmbeddingsForm,
} from '../forms/gemini/embeddings-form';
import { geminiErrorBodySchema } from '../forms/gemini/error-shape';
import { toCanonicalRequest } from '../forms/gemini/request-to-canonical';
import {
  countTokensRequestSchema,
  generateContentRequestSchema,
} from '../forms/gemini/request-schema';
import {
  generateContentChunkSchema,
  generateContentResponseSchema,
} from '../forms/gemini/canonical-to-response';
import { parseBody } from '../forms/validation';
import { COUNT_TOKENS_ERRORS, serveCountTokens, type CountTokensParts } from './count-tokens';
import { serveEmbeddings } from './embeddings';
import { translationHeadersSchema } from './translation-headers';
import { INFERENCE_ERRORS, serveInference, type InferenceParts } from './inference';
import {
  jsonContent,
  named,
  type NamedSchema,
  type ResponseDoc,
  type RouteDoc,
  type RouteFamily,
} from './route-doc';
import { withErrors } from './route-kit';

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

const countTokensResponseSchema = z.object({ totalTokens: z.number().int() });

const generateContentRequest = named('GenerateContentRequest', generateContentRequestSchema);
const embedContentAnswer = jsonContent(
  'The vectors: `embedding` for one `content`, else `embeddings`.',
  named('EmbedContentResponse', embedContentResponseSchema),
);

/** What each method takes and answers, and a model it can be called with. */
const methodDocs: Record<
  ModelMethod,
  Pick<RouteDoc, 'summary' | 'description' | 'query' | 'headers' | 'responses' | 'metricsRoute'> & {
    body: NamedSchema;
    errors: readonly number[];
    exampleModel: string;
  }
> = {
  generateContent: {
    metricsRoute: 'gemini_generate',
    summary: 'Generate content (the Gemini form)',
    headers: translationHeadersSchema,
    body: generateContentRequest,
    responses: {
      200: jsonContent(
        'The answer.',
        named('GenerateContentResponse', generateContentResponseSchema),
      ),
    },
    errors: INFERENCE_ERRORS,
    exampleModel: 'sim/chat-standard',
  },
  streamGenerateContent: {
    metricsRoute: 'gemini_generate',
    summary: 'Generate content, streamed (the Gemini form)',
    description:
      'With `?alt=sse` (as the official clients ask) server-sent events; without it one JSON array, written chunk by chunk.',
    query: z.object({
      alt: z
        .literal('sse')
        .optional()
        .meta({ description: 'sse: server-sent events; else a JSON array.' }),
    }),
    headers: translationHeadersSchema,
    body: generateContentRequest,
    responses: {
      200: {
        description: 'The chunks; a failure after the start is one more chunk, an error body.',
        content: {
          'text/event-stream': { text: 'One `GenerateContentResponse` chunk per `data:` event.' },
          'application/json': named(
            'GenerateContentChunkArray',
            z.array(z.union([generateContentChunkSchema, geminiErrorBodySchema])),
          ),
        },
      } satisfies ResponseDoc,
    },
    errors: INFERENCE_ERRORS,
    exampleModel: 'sim/chat-standard',
  },
  countTokens: {
    metricsRoute: 'gemini_count_tokens',
    summary: 'Count the tokens of a Gemini request',
    description: 'Free: runs no model. Give `contents` or a whole `generateContentRequest`.',
    body: named('GeminiCountTokensRequest', countTokensRequestSchema),
    responses: {
      200: jsonContent('The prompt tokens.', named('GeminiTokenCount', countTokensResponseSchema)),
    },
    errors: COUNT_TOKENS_ERRORS,
    exampleModel: 'sim/chat-standard',
  },
  embedContent: {
    metricsRoute: 'gemini_embed',
    summary: 'Embed content (the Gemini form)',
    description: 'One `content`, or several as `contents`.',
    body: named('EmbedContentRequest', embedContentSchema),
    responses: { 200: embedContentAnswer },
    errors: INFERENCE_ERRORS,
    exampleModel: 'sim/embed-small',
  },
  batchEmbedContents: {
    metricsRoute: 'gemini_embed',
    summary: 'Embed a batch of contents (the Gemini form)',
    body: named('BatchEmbedContentsRequest', batchEmbedContentsSchema),
    responses: { 200: embedContentAnswer },
    errors: INFERENCE_ERRORS,
    exampleModel: 'sim/embed-small',
  },
};

/**
 * The paths that reach a method: `models/{model}` under `/v1beta` and `/v1`, and the
 * `{author}/{model}` aliases the AI SDK's Google provider asks for (MODEL_METHOD_PATH).
 */
const pathShapes = [
  { prefix: '/v1beta/models/{model}', suffix: '', byAuthor: false },
  { prefix: '/v1/models/{model}', suffix: 'V1', byAuthor: false },
  { prefix: '/v1beta/{author}/{model}', suffix: 'ByAuthor', byAuthor: true },
  { prefix: '/v1/{author}/{model}', suffix: 'ByAuthorV1', byAuthor: true },
];

const geminiDocs: RouteDoc[] = MODEL_METHODS.flatMap((method) =>
  pathShapes.map((shape, index): RouteDoc => {
    const { body, errors, exampleModel, ...described } = methodDocs[method];
    const slash = exampleModel.indexOf('/');
    return {
      ...described,
      ...(index > 0 && {
        summary: `${described.summary}: alias of /v1beta/models/{model}:${method}`,
      }),
      operationId: `gemini${method[0]!.toUpperCase()}${method.slice(1)}${shape.suffix}`,
      method: 'POST',
      path: `${shape.prefix}:${method}`,
      tag: 'Gemini',
      auth: 'gemini',
      pathParams: shape.byAuthor
        ? z.object({
            author: z.string().meta({ examples: [exampleModel.slice(0, slash)] }),
            model: z.string().meta({ examples: [exampleModel.slice(slash + 1)] }),
          })
        : z.object({
            model: z.string().meta({
              description:
                'A catalog id (`/` percent-encoded or not) or, where unambiguous, its bare name.',
              examples: [exampleModel],
            }),
          }),
      body,
      errors: { form: 'gemini', statuses: errors },
    };
  }),
);

export const geminiRoutes: RouteFamily<'names' | keyof InferenceParts | keyof CountTokensParts> = {
  routes: geminiDocs,
  add(router, parts) {
    router.add(
      'POST',
      MODEL_METHOD_PATH,
      withErrors(geminiForm.errorBody, async (context) => {
        const { modelName, method } = parseModelTarget(context.params.target ?? '');
        const resolve = () => parts.names.resolve(modelName, { allowBareName: true });

        if (method === 'countTokens') {
          await serveCountTokens(
            parts,
            context,
            'gemini',
            (raw): z.output<typeof countTokensResponseSchema> => {
              const { model } = resolve();
              const body = parseBody(countTokensRequestSchema, raw);
              const counted =
                body.generateContentRequest ??
                (body.contents ? { contents: body.contents } : undefined);
              if (!counted)
                throw invalidRequest(
                  "Invalid field 'contents': give contents or a generateContentRequest to count.",
                );
              return {
                totalTokens: countPromptTokens(toCanonicalRequest(counted, model.id, false)),
              };
            },
          );
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
      geminiDocs.map((doc) => doc.operationId),
    );

    // Registered after the real routes, so it answers only what they do not.
    const unknownPath = withErrors(geminiForm.errorBody, ({ request, url }) => {
      throw notFound(
        `No route ${request.method} ${url.pathname}. Gemini-form routes are POST /v1beta/models/{model}:{method}.`,
      );
    });
    for (const method of ALL_METHODS) router.addFallback(method, ANY_V1BETA_PATH, unknownPath);
  },
};
