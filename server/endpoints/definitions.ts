/**
 * The endpoint checks: one per public route a client may rely on and per way of sending a key, each
 * with the call it makes and the answer that counts as right. A route being listed does not make it
 * production-capable: these checks are how the workbench confirms it. Checks that run inference are
 * `paid`: they run only when asked to, and say what they cost.
 */
import type { CatalogModel } from '../../contract/workbench-api';
import { minimalMessages } from '../keys/balance';
import type { CollectedResponse, GatewayRequest } from '../core/gateway-client';
import { modelEndpointsPath } from '../catalog/model-endpoints';
import {
  hasModelList,
  isBalance,
  isChatCompletion,
  isChunkStream,
  isEmbeddingList,
  isGeminiAnswer,
  isGenerationRecord,
  isMessage,
  isResponse,
  providersOf,
} from './shapes';

/** What a run knows before it starts: the key, the models to call, a trace id to look up. */
export interface RunInputs {
  key: string;
  /** The text model the inference checks call. */
  model: CatalogModel | null;
  /** The model the embeddings check calls: one whose output modality is `embeddings`. */
  embeddingModel: CatalogModel | null;
  /** A trace id of an inference call, for the generation-record check. */
  generationId: string | null;
}

export type CheckCall = Omit<GatewayRequest, 'key' | 'keyPlacement'>;

export interface CheckDefinition {
  id: string;
  entry: string;
  method: 'GET' | 'POST';
  /** The path as shown; `{model}` and `{id}` are filled in when known. */
  path: string;
  auth_form: 'none' | 'bearer' | 'query' | 'x-api-key' | 'x-goog-api-key' | 'bearer-on-vendor-b';
  /**
   * An entry that this project's gateway does not document as served (no production
   * contract). Entries the project's gateway documents and serves are not planned.
   */
  planned: boolean;
  /** Runs inference: it costs money unless its model is free. */
  paid: boolean;
  /** The catalog model it calls: the text model (default), or the embedding model. */
  modelKind?: 'text' | 'embeddings';
  /** Completion tokens asked for (paid checks), for the estimate. */
  maxTokens: number;
  /** The answer that counts as right although it is an error (`expected_error`). */
  expectedStatus?: number;
  /** The call to make, or why it cannot be made. */
  build(inputs: RunInputs): { call: CheckCall; path: string } | { skip: string };
  /** True when a 2xx answer has the shape the entry promises. */
  shapeOk(answer: CollectedResponse): boolean;
  /** What an available answer found, for the explanation (e.g. how many providers). */
  summarize?(answer: CollectedResponse): string | null;
}

/** Why the embeddings check cannot run: no model to send it to. */
export const noEmbeddingModel =
  'The catalog has no embedding model (none lists the output modality "embeddings"), so there is nothing to embed with.';

const needsModel = { skip: 'No model to call: the catalog could not be read or is empty.' };

/**
 * A check's call on the catalog model (skipped without one). `shownSuffix` is added to the path
 * the report shows: `?key=…` where the key travels in the query.
 */
function withModel(call: (model: string) => CheckCall, shownSuffix = ''): CheckDefinition['build'] {
  return ({ model }) => {
    if (!model) return needsModel;
    const built = call(model.id);
    return { call: built, path: built.path + shownSuffix };
  };
}

const chatBody = (model: string, stream: boolean) => ({
  model,
  messages: minimalMessages,
  max_tokens: 1,
  ...(stream ? { stream: true } : {}),
});

const messagesBody = (model: string) => ({ model, max_tokens: 1, messages: minimalMessages });

const geminiBody = {
  contents: [{ role: 'user', parts: [{ text: minimalMessages[0]?.content ?? 'Hi' }] }],
  generationConfig: { maxOutputTokens: 1 },
};

const geminiCall = (model: string): CheckCall => ({
  method: 'POST',
  path: `/v1beta/models/${model}:generateContent`,
  json: geminiBody,
});

/** Every check, in the order it runs (chat before the generation record that needs its id). */
export const checkDefinitions: CheckDefinition[] = [
  {
    id: 'models-anonymous',
    entry: 'Model catalog (no key)',
    method: 'GET',
    path: '/v1/models',
    auth_form: 'none',
    planned: false,
    paid: false,
    maxTokens: 0,
    build: () => ({ call: { method: 'GET', path: '/v1/models' }, path: '/v1/models' }),
    shapeOk: hasModelList,
  },
  {
    id: 'models-with-key',
    entry: 'Model catalog (with key)',
    method: 'GET',
    path: '/v1/models',
    auth_form: 'bearer',
    planned: false,
    paid: false,
    maxTokens: 0,
    build: () => ({ call: { method: 'GET', path: '/v1/models' }, path: '/v1/models' }),
    shapeOk: hasModelList,
  },
  {
    id: 'balance',
    entry: 'Balance (Bearer)',
    method: 'GET',
    path: '/v1/balance',
    auth_form: 'bearer',
    planned: false,
    paid: false,
    maxTokens: 0,
    build: () => ({ call: { method: 'GET', path: '/v1/balance' }, path: '/v1/balance' }),
    shapeOk: isBalance,
  },
  {
    id: 'auth-query',
    entry: 'Balance (?key= query form)',
    method: 'GET',
    path: '/v1/balance?key=…',
    auth_form: 'query',
    planned: false,
    paid: false,
    maxTokens: 0,
    build: () => ({ call: { method: 'GET', path: '/v1/balance' }, path: '/v1/balance?key=…' }),
    shapeOk: isBalance,
  },
  {
    id: 'chat-completions',
    entry: 'Chat completions',
    method: 'POST',
    path: '/v1/chat/completions',
    auth_form: 'bearer',
    planned: false,
    paid: true,
    maxTokens: 1,
    build: withModel((model) => ({
      method: 'POST',
      path: '/v1/chat/completions',
      json: chatBody(model, false),
    })),
    shapeOk: isChatCompletion,
  },
  {
    id: 'chat-completions-stream',
    entry: 'Chat completions (streaming)',
    method: 'POST',
    path: '/v1/chat/completions',
    auth_form: 'bearer',
    planned: false,
    paid: true,
    maxTokens: 1,
    build: withModel((model) => ({
      method: 'POST',
      path: '/v1/chat/completions',
      json: chatBody(model, true),
      stream: true,
    })),
    shapeOk: isChunkStream,
  },
  {
    id: 'messages',
    entry: 'Messages form (Anthropic, x-api-key)',
    method: 'POST',
    path: '/v1/messages',
    auth_form: 'x-api-key',
    planned: false,
    paid: true,
    maxTokens: 1,
    build: withModel((model) => ({
      method: 'POST',
      path: '/v1/messages',
      json: messagesBody(model),
    })),
    shapeOk: isMessage,
  },
  {
    id: 'messages-bearer',
    entry: 'Messages form (Anthropic, Bearer)',
    method: 'POST',
    path: '/v1/messages',
    auth_form: 'bearer',
    planned: false,
    paid: true,
    maxTokens: 1,
    build: withModel((model) => ({
      method: 'POST',
      path: '/v1/messages',
      json: messagesBody(model),
    })),
    shapeOk: isMessage,
  },
  {
    id: 'gemini-generate-content',
    entry: 'Gemini form (x-goog-api-key)',
    method: 'POST',
    path: '/v1beta/models/{model}:generateContent',
    auth_form: 'x-goog-api-key',
    planned: false,
    paid: true,
    maxTokens: 1,
    build: withModel(geminiCall),
    shapeOk: isGeminiAnswer,
  },
  {
    id: 'gemini-query-key',
    entry: 'Gemini form (?key= query form)',
    method: 'POST',
    path: '/v1beta/models/{model}:generateContent?key=…',
    auth_form: 'query',
    planned: false,
    paid: true,
    maxTokens: 1,
    build: withModel(geminiCall, '?key=…'),
    shapeOk: isGeminiAnswer,
  },
  {
    // Free: the gateway rejects a Bearer token on the Gemini form with 401 before any inference.
    id: 'gemini-bearer-rejected',
    entry: 'Gemini form with a Bearer token (must be rejected)',
    method: 'POST',
    path: '/v1beta/models/{model}:generateContent',
    auth_form: 'bearer-on-vendor-b',
    planned: false,
    paid: false,
    maxTokens: 0,
    expectedStatus: 401,
    build: withModel(geminiCall),
    shapeOk: () => false,
  },
  {
    id: 'responses',
    entry: 'Responses form',
    method: 'POST',
    path: '/v1/responses',
    auth_form: 'bearer',
    // Documented and served by this project's gateway (docs/routes.md): not planned.
    planned: false,
    paid: true,
    // The smallest output the Responses form accepts.
    maxTokens: 16,
    build: withModel((model) => ({
      method: 'POST',
      path: '/v1/responses',
      json: { model, input: minimalMessages[0]?.content, max_output_tokens: 16 },
    })),
    shapeOk: isResponse,
  },
  {
    // This project's gateway documents and serves `GET /v1/generation` (docs/routes.md), so
    // the check is an ordinary one, not a planned entry.
    id: 'generation',
    entry: 'Generation record',
    method: 'GET',
    path: '/v1/generation?id={id}',
    auth_form: 'bearer',
    planned: false,
    paid: false,
    maxTokens: 0,
    build: ({ generationId }) =>
      generationId
        ? {
            call: { method: 'GET', path: `/v1/generation?id=${encodeURIComponent(generationId)}` },
            path: `/v1/generation?id=${generationId}`,
          }
        : {
            skip: 'Needs the trace id of an inference call: run the inference checks, or send a message in the Playground first.',
          },
    shapeOk: isGenerationRecord,
  },
  {
    // Free and keyless, like the catalog: the providers of the model the checks call;
    // documented and served by this project's gateway, like the generation record.
    id: 'model-endpoints',
    entry: 'Provider endpoints of a model',
    method: 'GET',
    path: '/v1/models/{model}/endpoints',
    auth_form: 'none',
    planned: false,
    paid: false,
    maxTokens: 0,
    build: withModel((model) => ({ method: 'GET', path: modelEndpointsPath(model) })),
    shapeOk: (answer) => providersOf(answer) !== null,
    summarize: (answer) => {
      const providers = providersOf(answer);
      if (!providers) return null;
      if (providers.length === 0) return 'No provider serves the model.';
      if (providers.length === 1) return `1 provider: ${providers[0]}.`;
      return `${providers.length} providers, in fallback order: ${providers.join(', ')}.`;
    },
  },
  {
    id: 'embeddings',
    entry: 'Embeddings',
    method: 'POST',
    path: '/v1/embeddings',
    auth_form: 'bearer',
    // Documented and served by this project's gateway (docs/routes.md): not planned.
    planned: false,
    paid: true,
    modelKind: 'embeddings',
    maxTokens: 0,
    build: ({ embeddingModel }) =>
      embeddingModel
        ? {
            call: {
              method: 'POST',
              path: '/v1/embeddings',
              json: { model: embeddingModel.id, input: minimalMessages[0]?.content },
            },
            path: '/v1/embeddings',
          }
        : { skip: noEmbeddingModel },
    shapeOk: isEmbeddingList,
  },
];
