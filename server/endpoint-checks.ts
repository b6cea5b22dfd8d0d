/**
 * Endpoint availability checks: one per entry of spec section 4 and per auth form of section 5.
 * The spec says availability is confirmed in the workbench (1.5); these checks are how.
 * Checks that run inference cost money: they run only with `include_paid` and say so.
 */
import { Router } from 'express';
import { z } from 'zod';
import {
  balanceSchema,
  generationRecordSchema,
  modelEndpointListSchema,
  modelEndpointSchema,
} from '../contract/gateway';
import {
  checksReportSchema,
  runChecksRequestSchema,
  type CatalogModel,
  type CheckResult,
  type ChecksReport,
} from '../contract/workbench-api';
import { minimalMessages } from './balance';
import { classifyOutcome, explainOutcome } from './check-outcome';
import type { WorkbenchContext } from './context';
import { ApiFailure, parseInput } from './errors';
import { abortOnClientClose } from './client-close';
import {
  CallerGoneError,
  GatewayCallError,
  type CollectedResponse,
  type GatewayRequest,
  type KeyPlacement,
} from './gateway-client';
import { modelEndpointsPath } from './model-endpoints';
import { redactSecretText } from './secrets';
import { minimalCallCost } from './validate-key';

interface RunInputs {
  key: string;
  model: CatalogModel | null;
  /** A trace id of an inference call, for the generation-record check. */
  generationId: string | null;
}

type CheckCall = Omit<GatewayRequest, 'key' | 'keyPlacement'>;

interface CheckDefinition {
  id: string;
  entry: string;
  method: 'GET' | 'POST';
  /** The path as shown; `{model}` and `{id}` are filled in when known. */
  path: string;
  auth_form: 'none' | 'bearer' | 'query' | 'x-api-key' | 'x-goog-api-key' | 'bearer-on-vendor-b';
  planned: boolean;
  paid: boolean;
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

function object(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function jsonOf(answer: CollectedResponse): Record<string, unknown> | null {
  return answer.json ? object(answer.json.value) : null;
}

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

const hasModelList = (answer: CollectedResponse) => Array.isArray(jsonOf(answer)?.data);
/** The provider ids of a model's endpoints list, or null when the answer is not one. */
const providersOf = (answer: CollectedResponse): string[] | null => {
  const list = modelEndpointListSchema.safeParse(answer.json?.value);
  if (!list.success) return null;
  return list.data.data.flatMap((entry) => {
    const endpoint = modelEndpointSchema.safeParse(entry);
    return endpoint.success ? [endpoint.data.provider] : [];
  });
};
const isBalance = (answer: CollectedResponse) =>
  balanceSchema.safeParse(answer.json?.value).success;
const isChatCompletion = (answer: CollectedResponse) => {
  const body = jsonOf(answer);
  return body?.object === 'chat.completion' && Array.isArray(body.choices);
};
const isMessage = (answer: CollectedResponse) => {
  const body = jsonOf(answer);
  return body?.type === 'message' && Array.isArray(body.content);
};
const isGeminiAnswer = (answer: CollectedResponse) => Array.isArray(jsonOf(answer)?.candidates);
const isChunkStream = (answer: CollectedResponse) =>
  answer.contentType.includes('text/event-stream') &&
  answer.text.split('\n').some((line) => {
    if (!line.startsWith('data:')) return false;
    try {
      return object(JSON.parse(line.slice(5)))?.object === 'chat.completion.chunk';
    } catch {
      return false;
    }
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
    entry: 'Messages form (vendor A, x-api-key)',
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
    entry: 'Messages form (vendor A, Bearer)',
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
    entry: 'Gemini form (vendor B, x-goog-api-key)',
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
    entry: 'Gemini form (vendor B, ?key= query form)',
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
    // Free: the spec says the gateway rejects this with 401 before any inference.
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
    planned: true,
    paid: true,
    // The smallest output the Responses form accepts.
    maxTokens: 16,
    build: withModel((model) => ({
      method: 'POST',
      path: '/v1/responses',
      json: { model, input: minimalMessages[0]?.content, max_output_tokens: 16 },
    })),
    shapeOk: (answer) => jsonOf(answer)?.object === 'response',
  },
  {
    id: 'generation',
    entry: 'Generation record',
    method: 'GET',
    path: '/v1/generation?id={id}',
    auth_form: 'bearer',
    planned: true,
    paid: false,
    maxTokens: 0,
    build: ({ generationId }) =>
      generationId
        ? {
            call: { method: 'GET', path: `/v1/generation?id=${encodeURIComponent(generationId)}` },
            path: `/v1/generation?id=${generationId}`,
          }
        : {
            skip: 'Needs the trace id of an inference call: run the paid checks, or send a message in the Playground first.',
          },
    shapeOk: (answer) => generationRecordSchema.safeParse(answer.json?.value).success,
  },
  {
    // Free and keyless, like the catalog: the providers of the model the checks call.
    id: 'model-endpoints',
    entry: 'Provider endpoints of a model',
    method: 'GET',
    path: '/v1/models/{model}/endpoints',
    auth_form: 'none',
    planned: true,
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
    planned: true,
    paid: true,
    maxTokens: 0,
    build: withModel((model) => ({
      method: 'POST',
      path: '/v1/embeddings',
      json: { model, input: minimalMessages[0]?.content },
    })),
    shapeOk: (answer) => {
      const data = jsonOf(answer)?.data;
      return Array.isArray(data) && Array.isArray(object(data[0])?.embedding);
    },
  },
];

function placementOf(definition: CheckDefinition): KeyPlacement {
  switch (definition.auth_form) {
    case 'none':
      return 'none';
    case 'query':
      return 'query';
    case 'x-api-key':
      return 'x-api-key';
    case 'x-goog-api-key':
      return 'x-goog-api-key';
    default:
      return 'bearer';
  }
}

/** What a paid check's minimal call costs on the model; 0 for free checks. */
function estimateCost(definition: CheckDefinition, model: CatalogModel | null): number {
  if (!definition.paid || !model) return 0;
  return minimalCallCost(model, definition.maxTokens).estimatedCostUsd;
}

function planned(
  definition: CheckDefinition,
  model: CatalogModel | null,
  explanation: string,
): CheckResult {
  return {
    id: definition.id,
    entry: definition.entry,
    method: definition.method,
    path: model ? definition.path.replace('{model}', model.id) : definition.path,
    auth_form: definition.auth_form,
    planned: definition.planned,
    paid: definition.paid,
    estimated_cost_usd: estimateCost(definition, model),
    outcome: 'skipped',
    status: null,
    latency_ms: null,
    cf_ray: null,
    explanation,
    ran_at: null,
  };
}

function gatewayMessageOf(answer: CollectedResponse, keys: string[]): string | null {
  const body = jsonOf(answer);
  const error = body?.error;
  const message =
    typeof error === 'string'
      ? error
      : typeof object(error)?.message === 'string'
        ? (object(error)?.message as string)
        : typeof body?.message === 'string'
          ? body.message
          : null;
  return message === null ? null : redactSecretText(message, keys).slice(0, 200);
}

/** What an available answer found, with anything key-like in the gateway's text masked. */
function summaryOf(
  definition: CheckDefinition,
  answer: CollectedResponse | null,
  keys: string[],
): string | null {
  const summary = answer ? definition.summarize?.(answer) : null;
  return summary ? redactSecretText(summary, keys) : null;
}

async function runOne(
  context: WorkbenchContext,
  definition: CheckDefinition,
  inputs: RunInputs,
  includePaid: boolean,
  signal?: AbortSignal,
): Promise<{ result: CheckResult; answer: CollectedResponse | null }> {
  const base = planned(definition, inputs.model, '');
  if (definition.paid && !includePaid) {
    const cost = base.estimated_cost_usd;
    return {
      result: {
        ...base,
        explanation:
          cost > 0
            ? `Costs money (it runs inference, about $${cost.toPrecision(2)}): run with paid checks included to call it.`
            : 'Runs inference (on a free model, so $0 estimated): run with paid checks included to call it.',
      },
      answer: null,
    };
  }
  const built = definition.build(inputs);
  if ('skip' in built)
    return { result: { ...base, explanation: built.skip, ran_at: Date.now() }, answer: null };
  const ranAt = Date.now();
  const keys = context.profiles.allKeys();
  try {
    const answer = await context.gateway.collect({
      ...built.call,
      signal,
      ...(definition.auth_form === 'none'
        ? {}
        : { key: inputs.key, keyPlacement: placementOf(definition) }),
    });
    const ok = answer.status >= 200 && answer.status < 300;
    const outcome = classifyOutcome(
      answer.status,
      ok && definition.shapeOk(answer),
      definition.expectedStatus,
    );
    return {
      result: {
        ...base,
        path: built.path,
        outcome,
        status: answer.status,
        latency_ms: answer.totalMs,
        cf_ray: answer.cfRay,
        explanation: explainOutcome(outcome, {
          status: answer.status,
          planned: definition.planned,
          expectedStatus: definition.expectedStatus,
          gatewayMessage: ok ? null : gatewayMessageOf(answer, keys),
          found: summaryOf(definition, outcome === 'available' ? answer : null, keys),
        }),
        ran_at: ranAt,
      },
      answer,
    };
  } catch (error) {
    if (!(error instanceof GatewayCallError)) throw error;
    return {
      result: {
        ...base,
        path: built.path,
        outcome: 'failing',
        latency_ms: Date.now() - ranAt,
        explanation: `${error.message} (stage: ${error.stage})`,
        ran_at: ranAt,
      },
      answer: null,
    };
  }
}

export class EndpointChecks {
  /** The last report per profile, kept in memory with its time. */
  private readonly reports = new Map<string, ChecksReport>();

  constructor(private readonly context: WorkbenchContext) {}

  private async modelFor(requested: string | undefined): Promise<CatalogModel | null> {
    try {
      if (requested) return await this.context.catalog.find(requested, 'model');
      return await this.context.catalog.cheapest();
    } catch (error) {
      // A model the catalog does not have is the caller's mistake; a catalog that cannot be
      // read is one of the things the checks themselves report.
      if (error instanceof ApiFailure && error.detail.field === 'model') throw error;
      return null;
    }
  }

  async plan(profile: string): Promise<ChecksReport> {
    this.context.profiles.keyOf(profile);
    const previous = this.reports.get(profile);
    if (previous) return previous;
    let model: CatalogModel | null = null;
    try {
      model = await this.context.catalog.cheapest();
    } catch {
      // The plan is still useful without prices.
    }
    return {
      profile,
      ran_at: null,
      results: checkDefinitions.map((definition) => planned(definition, model, 'Not run yet.')),
    };
  }

  async run(
    profile: string,
    options: { includePaid: boolean; only?: string[]; model?: string; signal?: AbortSignal },
  ): Promise<ChecksReport> {
    const key = this.context.profiles.keyOf(profile);
    const unknown = options.only?.find(
      (id) => !checkDefinitions.some((definition) => definition.id === id),
    );
    if (unknown !== undefined) {
      throw new ApiFailure(400, {
        message: `only: unknown check "${redactSecretText(unknown).slice(0, 80)}"`,
        stage: 'validation',
        field: 'only',
      });
    }
    const model = await this.modelFor(options.model);
    const previous = this.reports.get(profile) ?? (await this.plan(profile));
    const inputs: RunInputs = {
      key,
      model,
      generationId: this.context.profiles.lastTrace(profile),
    };
    const results: CheckResult[] = [];
    for (const definition of checkDefinitions) {
      // The browser left: the remaining checks (paid ones included) are not worth running.
      if (options.signal?.aborted) throw new CallerGoneError();
      if (options.only && !options.only.includes(definition.id)) {
        const kept = previous.results.find((result) => result.id === definition.id);
        results.push(kept ?? planned(definition, model, 'Not run yet.'));
        continue;
      }
      const { result, answer } = await runOne(
        this.context,
        definition,
        inputs,
        options.includePaid,
        options.signal,
      );
      // The generation check asks for the record of this run's own chat call when there is one.
      if (
        definition.id === 'chat-completions' &&
        answer?.cfRay &&
        answer.status >= 200 &&
        answer.status < 300
      ) {
        inputs.generationId = answer.cfRay;
        this.context.profiles.rememberTrace(profile, answer.cfRay);
      }
      results.push(result);
    }
    const report = checksReportSchema.parse({ profile, ran_at: Date.now(), results });
    this.reports.set(profile, report);
    return report;
  }
}

const checksQuerySchema = z.object({ profile: z.string().min(1) });

export function createChecksRouter(context: WorkbenchContext): Router {
  const router = Router();
  const checks = new EndpointChecks(context);
  router.get('/checks', async (request, response) => {
    const query = parseInput(checksQuerySchema, request.query, 'query');
    response.json(await checks.plan(query.profile));
  });
  router.post('/checks', async (request, response) => {
    const input = parseInput(runChecksRequestSchema, request.body, 'body');
    const signal = abortOnClientClose(response);
    response.json(
      await checks.run(input.profile, {
        includePaid: input.include_paid,
        only: input.only,
        model: input.model,
        signal,
      }),
    );
  });
  return router;
}
