/**
 * The workbench BFF's JSON API under `/api`: the server writes these shapes, the browser parses
 * them. No shape here ever carries a full key; keys appear only masked.
 */
import { z } from 'zod';
import {
  balanceSchema,
  cfRayPattern,
  keyEventSchema,
  keyKindSchema,
  managedKeySchema,
  modelEndpointStatsSchema,
  sessionActivitySchema,
  translationReportSchema,
} from './gateway';
import { openAiBatchEndpoints } from './batches';
import { recordUsageShape } from './generation-record-wire';
import { webhookDeliverySchema, webhookSchema } from './webhooks';

/**
 * Where a workbench request failed. `connect`, `first_byte`, `deadline`, `too_large` and
 * `gateway` are the BFF's own view of a gateway call; the later ones come from the gateway's
 * own error body.
 */
export const apiStageSchema = z.enum([
  'validation',
  'profile',
  'connect',
  'first_byte',
  /** The gateway's whole (non-streamed) answer did not arrive within the BFF's deadline. */
  'deadline',
  /** The gateway's (non-streamed) answer was larger than the BFF reads. */
  'too_large',
  'gateway',
  'authentication',
  'admission',
  'provider',
  'settlement',
  'internal',
  /** The workbench's own sign-in (WORKBENCH_ACCESS_TOKEN): no session, or a wrong token. */
  'session',
]);
export type ApiStage = z.infer<typeof apiStageSchema>;

/** Every non-2xx answer of `/api` has this body. */
export const apiErrorSchema = z.object({
  error: z.object({
    message: z.string(),
    stage: apiStageSchema,
    /** HTTP status the gateway answered, when the error came from it. */
    upstream_status: z.number().optional(),
    cf_ray: z.string().optional(),
    /** The request field that was wrong, for validation errors. */
    field: z.string().optional(),
    /** What to do next, in plain words. */
    advice: z.string().optional(),
    /** The gateway's machine-readable error type, when it sent one. */
    type: z.string().optional(),
  }),
});
export type ApiError = z.infer<typeof apiErrorSchema>;

/**
 * The embedded gateway's process, which the workbench runs as a child and restarts with backoff
 * when it stops: `running`, or `restarting` (waiting `retry_in_ms` before attempt `attempt`).
 */
export const embeddedGatewaySchema = z.object({
  state: z.enum(['running', 'restarting', 'stopped']),
  /** The restart attempt under way (1 for the first restart after a stop); 0 while running. */
  attempt: z.number().int().min(0),
  /** Restarts since the workbench started. */
  restarts: z.number().int().min(0),
  /** How the last process ended, e.g. `signal SIGKILL` or `exit code 1`; null before any stop. */
  last_exit: z.string().nullable(),
  /** Milliseconds until the next start attempt, while `restarting`. */
  retry_in_ms: z.number().nullable(),
});
export type EmbeddedGatewayStatus = z.infer<typeof embeddedGatewaySchema>;

/** `GET /api/health` */
export const healthSchema = z.object({
  mode: z.enum(['embedded', 'external']),
  gateway_base_url: z.string(),
  reachable: z.boolean(),
  latency_ms: z.number().nullable(),
  error: z.string().optional(),
  /** What to do while the gateway does not answer, in plain words (written by the BFF). */
  advice: z.string().optional(),
  /** Embedded mode only: the gateway process the workbench supervises. */
  embedded_gateway: embeddedGatewaySchema.nullable().optional(),
});
export type Health = z.infer<typeof healthSchema>;

/** One key profile the BFF holds, as the browser may see it. */
export const profileSchema = z.object({
  name: z.string(),
  masked_key: z.string(),
  /** From the balance call; null when the gateway could not tell (unknown key, unreachable). */
  identity: keyKindSchema.nullable(),
});
export type Profile = z.infer<typeof profileSchema>;

/** `GET /api/profiles` */
export const profilesSchema = z.object({ profiles: z.array(profileSchema) });

/** One catalog model, with the fields the UI knows pulled out and the raw entry kept whole. */
export const catalogModelSchema = z.object({
  id: z.string(),
  name: z.string(),
  author: z.string(),
  /** `free`, `batch`, another variant name, or null for the base model. */
  variant: z.string().nullable(),
  description: z.string(),
  created: z.number().nullable(),
  context_length: z.number().nullable(),
  /** The most tokens one answer may have (`top_provider.max_completion_tokens`); null: not said. */
  max_completion_tokens: z.number().nullable(),
  /** USD per token, as decimal strings exactly as the gateway sent them. */
  prompt_price: z.string().nullable(),
  completion_price: z.string().nullable(),
  input_modalities: z.array(z.string()),
  output_modalities: z.array(z.string()),
  supported_parameters: z.array(z.string()),
  /** Ids of the providers serving the model, in fallback order; empty when none are listed. */
  providers: z.array(z.string()),
  /** The entry exactly as the gateway sent it, unknown fields included. */
  raw: z.record(z.string(), z.unknown()),
});
export type CatalogModel = z.infer<typeof catalogModelSchema>;

/** `GET /api/catalog` */
export const catalogSchema = z.object({
  models: z.array(catalogModelSchema),
  fetched_at: z.number(),
  /** Entries the BFF could not read at all (no id); kept so the UI can say so. */
  skipped: z.number(),
});
export type Catalog = z.infer<typeof catalogSchema>;

/** A provider's state at the gateway; `unknown` for a word the workbench does not know yet. */
export const providerStatusSchema = z.enum(['healthy', 'cooling_down', 'unknown']);
export type ProviderStatus = z.infer<typeof providerStatusSchema>;

/** One provider serving a model, with its own prices and current status. */
export const providerEndpointSchema = z.object({
  provider: z.string(),
  /** `openai-compatible`, `anthropic`, `gemini`, `simulated`; null when the gateway did not say. */
  kind: z.string().nullable(),
  /** The model name this provider is asked for; null when the gateway did not say. */
  upstream_model: z.string().nullable(),
  /** 1 for the provider tried first. */
  order: z.number(),
  /** USD per token, as decimal strings exactly as the gateway sent them. */
  prompt_price: z.string().nullable(),
  completion_price: z.string().nullable(),
  context_length: z.number().nullable(),
  max_completion_tokens: z.number().nullable(),
  status: providerStatusSchema,
  /** Seconds (from `fetched_at`) until a cooling-down provider is tried again. */
  retry_after: z.number().nullable(),
  /** Share of attempts (all keys) that began an answer, last 30 minutes; null without traffic. */
  uptime_last_30m: z.number().nullable(),
  /** Median latency and time to first token, last 30 minutes, ms; null without data. */
  latency_ms_p50: z.number().nullable(),
  ttft_ms_p50: z.number().nullable(),
});
export type ProviderEndpoint = z.infer<typeof providerEndpointSchema>;

/**
 * `GET /api/catalog/endpoints?model=<id>`: the providers serving a catalog model, in the order
 * the gateway tries them (its `GET /v1/models/{author}/{model}/endpoints`).
 */
export const modelEndpointsSchema = z.object({
  model: z.string(),
  endpoints: z.array(providerEndpointSchema),
  fetched_at: z.number(),
  cf_ray: z.string().nullable(),
  /** Entries the BFF could not read (no provider id); kept so the UI can say so. */
  skipped: z.number(),
});
export type ModelEndpoints = z.infer<typeof modelEndpointsSchema>;

/** `GET /api/catalog/endpoints` query. */
export const modelEndpointsQuerySchema = z.object({ model: z.string().min(1).max(300) });

/** The windows of the gateway's provider stats: hour buckets over 24 h, 6-hour buckets over 7 d. */
export const endpointStatsWindowSchema = z.enum(['24h', '7d']);
export type EndpointStatsWindow = z.infer<typeof endpointStatsWindowSchema>;

/** `GET /api/catalog/endpoints/stats` query. */
export const modelEndpointStatsQuerySchema = modelEndpointsQuerySchema.extend({
  window: endpointStatsWindowSchema.default('24h'),
});

/**
 * `GET /api/catalog/endpoints/stats?model=&window=`: the gateway's answer as its contract reads
 * it (`modelEndpointStatsSchema`), plus the trace id of the call.
 */
export const modelEndpointStatsAnswerSchema = modelEndpointStatsSchema.extend({
  cf_ray: z.string().nullable(),
});
export type ModelEndpointStatsAnswer = z.infer<typeof modelEndpointStatsAnswerSchema>;

/**
 * The key state (active, expired, disabled, depleted, plus `blocked` when the gateway refuses the
 * key because of its parent, which the balance does not show).
 */
export const keyStateSchema = z.enum(['active', 'expired', 'disabled', 'depleted', 'blocked']);
export type KeyState = z.infer<typeof keyStateSchema>;

/**
 * `GET /api/balance?profile=NAME`, and `POST /api/balance/probe` (which adds `probe`). The probe
 * runs inference, so it costs money: it is a same-origin JSON POST, never a GET a cross-site
 * page could trigger with an `<img>`.
 */
export const balanceViewSchema = z.object({
  profile: z.string(),
  balance: balanceSchema,
  state: keyStateSchema,
  /** The guidance for this state, in plain words. */
  guidance: z.string(),
  cf_ray: z.string().nullable(),
  fetched_at: z.number(),
  /**
   * Why the key is refused although its own figures look usable: its parent key (from the
   * gateway's `GET /v1/key`). `reason` is the gateway's word (`parent_disabled`,
   * `parent_expired`, `parent_revoked`, `parent_missing`, `parent_depleted`); `summary` says it
   * in a few words. Null when nothing blocks the key, or the gateway has no `GET /v1/key`.
   */
  blocked_by: z.object({ reason: z.string(), summary: z.string() }).nullable().optional(),
  /**
   * Present only from `POST /api/balance/probe` on an active-looking key: the minimal inference
   * call (`max_tokens: 1`) made to tell `blocked` (402 while the balance looks active) from
   * `active`.
   */
  probe: z
    .object({
      model: z.string(),
      upstream_status: z.number(),
      cf_ray: z.string().nullable(),
      cost_usd: z.number().nullable(),
    })
    .optional(),
});
export type BalanceView = z.infer<typeof balanceViewSchema>;

/** `POST /api/balance/probe` body: whose balance, and the model the minimal call uses. */
export const balanceProbeRequestSchema = z.object({
  profile: z.string().min(1),
  /** The model the probe calls; the cheapest catalog model when absent. */
  model: z.string().min(1).optional(),
});
export type BalanceProbeRequest = z.infer<typeof balanceProbeRequestSchema>;

/** A chat message as the playground sends it (chat-completion form). */
export const chatContentPartSchema = z.union([
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image_url'), image_url: z.object({ url: z.string() }) }),
]);
export const chatMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.union([z.string(), z.array(chatContentPartSchema)]).nullable(),
  tool_calls: z
    .array(
      z.object({
        id: z.string(),
        type: z.literal('function'),
        function: z.object({ name: z.string(), arguments: z.string() }),
      }),
    )
    .optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
});
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/**
 * The gateway route a playground request goes to: `chat_completions` (`POST
 * /v1/chat/completions`, the default) or `responses` (`POST /v1/responses`, docs/responses.md).
 */
export const inferenceApiSchema = z.enum(['chat_completions', 'responses']);
export type InferenceApi = z.infer<typeof inferenceApiSchema>;

/**
 * The chat-completion `response_format`: plain text, any JSON object, or JSON matching a schema
 * (docs/reasoning-and-structured-outputs.md).
 */
export const responseFormatSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
      schema: z.record(z.string(), z.unknown()),
      strict: z.boolean().optional(),
    }),
  }),
]);
export type ResponseFormat = z.infer<typeof responseFormatSchema>;

/**
 * The largest request body the workbench server reads (`/api/…`); a larger one is refused with
 * 413, so the playground stops a send that would be, before it leaves the browser.
 */
export const workbenchBodyLimitBytes = 8 * 1024 * 1024;

/**
 * How hard a reasoning model thinks (`reasoning_effort` in the chat form, `reasoning.effort` in
 * Responses); sent only to a model listing `reasoning` (docs/reasoning-and-structured-outputs.md).
 */
export const reasoningEfforts = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
export const reasoningEffortSchema = z.enum(reasoningEfforts);
export type ReasoningEffort = z.infer<typeof reasoningEffortSchema>;

/**
 * `POST /api/chat` body: a profile name and a chat-completion request for the gateway. With
 * `api: "responses"` the BFF sends the same conversation in the Responses form
 * (`contract/responses-form.ts`) and answers in the chat-completion shape all the same.
 */
export const chatRequestSchema = z.object({
  profile: z.string().min(1),
  api: inferenceApiSchema.optional(),
  request: z.object({
    model: z.string().min(1),
    messages: z.array(chatMessageSchema).min(1),
    max_tokens: z.number().int().positive().optional(),
    temperature: z.number().min(0).max(2).optional(),
    top_p: z.number().min(0).max(1).optional(),
    stop: z.array(z.string()).max(4).optional(),
    seed: z.number().int().optional(),
    stream: z.boolean().optional(),
    tools: z.array(z.unknown()).optional(),
    tool_choice: z.unknown().optional(),
    response_format: responseFormatSchema.optional(),
    reasoning_effort: reasoningEffortSchema.optional(),
  }),
});
export type ChatRequest = z.infer<typeof chatRequestSchema>;

/** Timing and tracing the BFF measured for one gateway call. */
export const callMetaSchema = z.object({
  upstream_status: z.number(),
  cf_ray: z.string().nullable(),
  ttfb_ms: z.number(),
  total_ms: z.number().nullable(),
  /**
   * Inference only: the provider that answered (the gateway's `x-gateway-provider`); null when
   * the gateway named none. Absent from other calls and from runs saved before it existed.
   */
  provider: z.string().nullable().optional(),
  /**
   * Inference only: provider attempts the answer took (`x-gateway-attempts`, 1 when the gateway
   * sent none but named a provider); more than 1 means retries or fallbacks happened.
   */
  attempts: z.number().int().positive().nullable().optional(),
  /**
   * Inference only: what the gateway dropped or changed to reach the provider (its
   * `x-gateway-dropped-params` / `x-gateway-adjusted-params`); null when nothing.
   */
  translation: translationReportSchema.nullable().optional(),
});
export type CallMeta = z.infer<typeof callMetaSchema>;

/**
 * `POST /api/chat` with `stream` false: the gateway's JSON body (a chat completion, or its
 * error body) and the call's meta.
 *
 * With `stream` true the answer is `text/event-stream`: first `event: meta` with
 * `{upstream_status, cf_ray, ttfb_ms, total_ms: null, provider, attempts}`, then the gateway's
 * own `data:` lines unchanged (chat-completion chunks, ending `data: [DONE]`), then `event: done`
 * with the final meta (`total_ms` set). A gateway error before the stream starts comes as a JSON
 * API error. If the gateway breaks off mid-stream (connection lost, silent too long),
 * `event: error` with an `apiErrorSchema` body comes before `event: done`. If the gateway answers
 * a streamed request with plain JSON instead, the answer is this JSON shape (check the
 * `Content-Type`).
 */
export const chatResultSchema = z.object({
  meta: callMetaSchema,
  body: z.unknown(),
});
export type ChatResult = z.infer<typeof chatResultSchema>;

/** The most inputs one `POST /api/embeddings` may embed. */
export const maxEmbeddingInputs = 32;

/**
 * `POST /api/embeddings` body: a profile name and what to embed. The BFF sends it to the
 * gateway's `POST /v1/embeddings` with `encoding_format: "float"`.
 */
/** `POST /api/count-tokens` (body: a chat request): the prompt's tokens as the gateway counts them. */
export const tokenCountSchema = z.object({ input_tokens: z.number().int().nonnegative() });
export type TokenCount = z.infer<typeof tokenCountSchema>;

export const embeddingsRequestSchema = z.object({
  profile: z.string().min(1),
  request: z.object({
    model: z.string().min(1),
    input: z
      .array(z.string().min(1, 'must not be empty').max(100_000))
      .min(1, 'give at least one input')
      .max(maxEmbeddingInputs, `at most ${maxEmbeddingInputs} inputs`),
    /** Fewer dimensions than the model's own, for models that can shorten their vectors. */
    dimensions: z.number().int().positive().max(65_536).optional(),
  }),
});
export type EmbeddingsRequest = z.infer<typeof embeddingsRequestSchema>;

/** `POST /api/embeddings`: the vectors in input order, the usage and the call's meta. */
export const embeddingsResultSchema = z.object({
  meta: callMetaSchema,
  model: z.string(),
  /** One vector per input, sorted by `index` (the input's position). */
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()) })),
  usage: z.object({
    prompt_tokens: z.number(),
    total_tokens: z.number(),
    /** What the key was charged, in USD; null when the gateway did not say. */
    cost: z.number().nullable(),
  }),
});
export type EmbeddingsResult = z.infer<typeof embeddingsResultSchema>;

/** A request's trace id (its cf-ray), as the gateway writes it. */
export const traceIdSchema = z
  .string()
  .regex(cfRayPattern, 'must be a trace id (cf-ray), like 0123456789abcdef-AMS');

/** `GET /api/generation?profile=&id=` query: whose key reads the record, and the request's trace id. */
export const generationQuerySchema = z.object({
  profile: z.string().min(1),
  id: traceIdSchema,
  /**
   * `pending=1`: a record not written yet answers 200 `{pending: true}` instead of 404, so a
   * page polling for it logs no failed request in the browser's console.
   */
  pending: z.literal('1').optional(),
});

/** `GET /api/generation?…&pending=1` while the gateway has no record of the request (yet). */
export const generationPendingSchema = z.object({ id: z.string(), pending: z.literal(true) });

/**
 * `GET /api/generation`: what the gateway charged for one request, from its generation record
 * (`GET /v1/generation?id=`). The record is written when the request ends; a 404 a moment after
 * the reply may only mean it is not there yet.
 */
export const generationChargeSchema = z.object({
  /** The request's trace id (its cf-ray). */
  id: z.string(),
  model: z.string(),
  provider: z.string(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  /** What the key was charged, in USD. */
  cost_usd: z.number(),
  /** `completed`, or `ended_early` (stopped, or the provider failed mid-answer). */
  outcome: z.string(),
  finish_reason: z.string().nullable(),
  /** The provider reported no usage: the gateway counted the tokens itself. */
  usage_estimated: z.boolean(),
  /** The usage cost more than was reserved; the charge stopped at the reservation. */
  charge_capped: z.boolean(),
  /** `pending` until the charge is settled against the balance, then `settled`. */
  settlement: z.string(),
  /** Provider attempts before the answer started; 1 when the first one answered. */
  attempts: z.number(),
  /** The time the gateway itself added, in ms (`x-gateway-overhead-ms`); null if not kept. */
  overhead_ms: z.number().nullable().optional(),
  fetched_at: z.number(),
});
export type GenerationCharge = z.infer<typeof generationChargeSchema>;

/** `GET /api/validate-key/estimate?profile=&model=&max_tokens=`: the cost before it runs. */
export const validationEstimateSchema = z.object({
  model: z.string(),
  max_tokens: z.number(),
  estimated_cost_usd: z.number(),
  /** Set when the estimate is unsure, e.g. the catalog gives no price for the model. */
  note: z.string().optional(),
});
export type ValidationEstimate = z.infer<typeof validationEstimateSchema>;

/** `POST /api/validate-key` body and answer. */
export const validateKeyRequestSchema = z.object({
  profile: z.string().min(1),
  model: z.string().min(1),
  max_tokens: z.number().int().min(1).max(16).optional(),
});
export const validateKeyResultSchema = z.object({
  valid: z.boolean(),
  state: keyStateSchema.nullable(),
  message: z.string(),
  estimated_cost_usd: z.number(),
  cost_usd: z.number().nullable(),
  meta: callMetaSchema,
});
export type ValidateKeyResult = z.infer<typeof validateKeyResultSchema>;

/** What an endpoint check found. */
export const checkOutcomeSchema = z.enum([
  'available',
  'placeholder',
  'missing',
  'unauthorized',
  'payment_required',
  'forbidden',
  'failing',
  /** The answer was the one the check expected even though it is an error (e.g. a 401). */
  'expected_error',
  'skipped',
]);
export type CheckOutcome = z.infer<typeof checkOutcomeSchema>;

/** One endpoint check: what it calls and, after a run, what it found. */
export const checkResultSchema = z.object({
  id: z.string(),
  /** The checked entry, e.g. `Chat completions (streaming)`. */
  entry: z.string(),
  method: z.string(),
  path: z.string(),
  /** `none`, `bearer`, `query`, `x-api-key`, `x-goog-api-key`, `bearer-on-vendor-b`. */
  auth_form: z.string(),
  planned: z.boolean(),
  /** True when the check costs money (inference on a model that is not free, or of unknown price). */
  paid: z.boolean(),
  /** True when the check runs inference (on a free model it costs nothing and runs by default). */
  inference: z.boolean().optional(),
  estimated_cost_usd: z.number(),
  outcome: checkOutcomeSchema,
  status: z.number().nullable(),
  latency_ms: z.number().nullable(),
  cf_ray: z.string().nullable(),
  explanation: z.string(),
  ran_at: z.number().nullable(),
  /**
   * True when the check could not reach the gateway at all (no connection): the row says more
   * about the gateway's state at `ran_at` than about the endpoint, and goes stale once it is back.
   */
  gateway_unreachable: z.boolean().optional(),
});
export type CheckResult = z.infer<typeof checkResultSchema>;

/**
 * `POST /api/checks` body: which profile, whether the checks that cost money may run (free ones,
 * inference on a free model included, always do), optionally which ones.
 */
export const runChecksRequestSchema = z.object({
  profile: z.string().min(1),
  include_paid: z.boolean().default(false),
  only: z.array(z.string()).optional(),
  /** The model the checks that need one call; the cheapest catalog model when absent. */
  model: z.string().min(1).optional(),
});

/** `GET /api/checks?profile=` (the last run, or the plan when none ran) and `POST /api/checks`. */
export const checksReportSchema = z.object({
  profile: z.string(),
  ran_at: z.number().nullable(),
  results: z.array(checkResultSchema),
  /** The catalog model the checks that need one call (the cheapest by default); null if none. */
  model: z.object({ id: z.string(), free: z.boolean() }).nullable().optional(),
  /**
   * Why the gateway refuses the key, as its `GET /v1/key` named it at the run, when it does:
   * `summary` ("key disabled") and the `action` that fixes it ("Enable"). Null: usable or unknown.
   */
  key_refusal: z
    .object({ state: keyStateSchema, summary: z.string(), action: z.string() })
    .nullable()
    .optional(),
});
export type ChecksReport = z.infer<typeof checksReportSchema>;

/** Unix seconds in a query string: whole, non-negative. */
const unixSecondsQuery = z
  .string()
  .regex(/^\d{1,12}$/, 'must be Unix seconds (a whole number)')
  .transform(Number);

/** How a generation ended, as the gateway's listing filters it. */
export const generationOutcomeSchema = z.enum(['completed', 'ended_early']);
export type GenerationOutcome = z.infer<typeof generationOutcomeSchema>;

/** A gateway key's id, as the Activity routes' `key_id` filter takes it. */
export const keyIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,200}$/, 'must be a key id');

/** The most records one page of `GET /api/generations` may hold (the gateway's own cap). */
export const maxGenerationsPage = 200;

/**
 * `GET /api/generations` query: whose key reads the records, and the gateway's filters
 * (`from` inclusive, `to` exclusive, Unix seconds), page size and the previous page's cursor.
 */
export const generationsQuerySchema = z
  .object({
    profile: z.string().min(1),
    model: z.string().min(1).max(200).optional(),
    /** Only one agent session's requests. */
    session_id: z.string().min(1).max(200).optional(),
    outcome: generationOutcomeSchema.optional(),
    from: unixSecondsQuery.optional(),
    to: unixSecondsQuery.optional(),
    /** An account profile: only this key's records (its own id, or one of its children's). */
    key_id: keyIdSchema.optional(),
    limit: z
      .string()
      .regex(/^\d{1,3}$/, 'must be a whole number')
      .transform(Number)
      .refine((value) => value >= 1 && value <= maxGenerationsPage, {
        message: `must be between 1 and ${maxGenerationsPage}`,
      })
      .optional(),
    /** `next_cursor` of the previous page, as it came. */
    cursor: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,200}={0,2}$/, 'must be the next_cursor of a previous page')
      .optional(),
    /** One request by its trace id (cf-ray): the page holds it, or nothing; other filters ignored. */
    id: traceIdSchema.optional(),
  })
  .refine((query) => query.from === undefined || query.to === undefined || query.from < query.to, {
    message: 'must be later than from',
    path: ['to'],
  });

/** The child key a record belongs to, when an account profile reads a child's record. */
export const recordChildSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** Masked: prefix and a short tail. */
  masked_key: z.string(),
});

/** One request of the Activity page: what the gateway recorded and charged for it. */
export const activityRequestSchema = z.object({
  /** The request's trace id (its cf-ray). */
  id: z.string(),
  /** When the request started, Unix seconds. */
  created_at: z.number(),
  model: z.string(),
  /** The provider that answered. */
  provider: z.string(),
  /** The public form it came in: `chat_completions`, `responses`, `messages`, `gemini`, `embeddings`… */
  form: z.string(),
  streamed: z.boolean(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  /** What the key was charged, in USD (exact to the nano-dollar). */
  cost_usd: z.number(),
  latency_ms: z.number(),
  /** `completed`, or `ended_early` (stopped, or the provider failed mid-answer). */
  outcome: z.string(),
  finish_reason: z.string().nullable(),
  /** `pending` until the charge is settled against the balance, then `settled`. */
  settlement: z.string(),
  usage_estimated: z.boolean(),
  charge_capped: z.boolean(),
  /**
   * Every provider attempt before the answer started, the answering one last: its HTTP status or
   * how it failed (`connect`, `first_byte_timeout`…), or why it was skipped (`cooling_down`,
   * `ignored`, `not_in_only`, `over_max_price`, `no_fallbacks`). Empty when the gateway did not
   * list them.
   */
  attempts: z.array(
    z.object({
      provider: z.string(),
      status: z.union([z.number(), z.string()]),
      latency_ms: z.number(),
      /** The model the attempt was for, when several could answer (fallbacks, an alias). */
      model: z.string().optional(),
    }),
  ),
  /** The model name the provider was asked for; null when the gateway did not say. */
  upstream_model: z.string().nullable(),
  /**
   * The id the client named when another model answered (an alias, a preset, or a model whose
   * fallback answered); null otherwise.
   */
  requested_model: z.string().nullable().optional(),
  /** The record's token counts besides prompt and completion, 0 when absent (generation-record.ts). */
  ...recordUsageShape,
  /** When the charge was settled against the balance, Unix seconds; null while pending. */
  settled_at: z.number().nullable(),
  /** What the gateway dropped or changed to reach the provider; null when nothing. */
  translation: translationReportSchema.nullable().optional(),
  /** The agent session the request belongs to (Claude Code's, Codex's…); null when none. */
  session_id: z.string().nullable().optional(),
  /** The batch the request was a line of (docs/batches.md); null for an interactive request. */
  batch_id: z.string().nullable().optional(),
  /** Null for the profile key's own requests. */
  child: recordChildSchema.nullable(),
});
export type ActivityRequest = z.infer<typeof activityRequestSchema>;

/** `GET /api/generations`: a page of the profile's requests, newest first. */
export const generationsPageSchema = z.object({
  profile: z.string(),
  data: z.array(activityRequestSchema),
  /** Pass back as `cursor` (with the same filters) for the next page; null on the last one. */
  next_cursor: z.string().nullable(),
  fetched_at: z.number(),
});
export type GenerationsPage = z.infer<typeof generationsPageSchema>;

/** The most days `GET /api/activity` covers (the gateway's own cap). */
export const maxActivityDays = 90;

/** `GET /api/activity` query: whose key, and how many days back (today included). */
export const activityQuerySchema = z.object({
  profile: z.string().min(1),
  days: z
    .string()
    .regex(/^\d{1,3}$/, 'must be a whole number')
    .transform(Number)
    .refine((value) => value >= 1 && value <= maxActivityDays, {
      message: `must be between 1 and ${maxActivityDays}`,
    })
    .optional(),
  key_id: keyIdSchema.optional(),
});

/** Requests, tokens and cost (USD, exact to the nano-dollar) of some requests. */
export const activityFiguresSchema = z.object({
  requests: z.number(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  cost_usd: z.number(),
});
export type ActivityFigures = z.infer<typeof activityFiguresSchema>;

/** One UTC day: its figures, and one entry per model used that day. */
export const activityDayViewSchema = activityFiguresSchema.extend({
  /** `YYYY-MM-DD`, UTC. */
  date: z.string(),
  models: z.array(activityFiguresSchema.extend({ model: z.string() })),
});
export type ActivityDayView = z.infer<typeof activityDayViewSchema>;

/** `GET /api/activity`: every UTC day of the range, oldest first, days without requests too. */
export const activityViewSchema = z.object({
  profile: z.string(),
  days: z.number(),
  /** First and last day, `YYYY-MM-DD` (UTC), both included. */
  from: z.string(),
  to: z.string(),
  data: z.array(activityDayViewSchema),
  totals: activityFiguresSchema,
  fetched_at: z.number(),
});
export type ActivityView = z.infer<typeof activityViewSchema>;

/**
 * `GET /api/activity/sessions?profile=&days=&key_id=`: the agent sessions of the range, the latest
 * active first, each with its requests, time, tokens, cache hits and cost (the gateway's
 * `GET /v1/activity/sessions`).
 */
export const agentSessionsViewSchema = z.object({
  profile: z.string(),
  data: sessionActivitySchema.shape.data,
  fetched_at: z.number(),
});
export type AgentSessionsView = z.infer<typeof agentSessionsViewSchema>;
export type AgentSessionView = AgentSessionsView['data'][number];

/** One batch as the workbench shows it: its progress and the cost of its lines so far. */
const batchViewSchema = z.object({
  id: z.string(),
  endpoint: z.string(),
  status: z.string(),
  total: z.number(),
  completed: z.number(),
  failed: z.number(),
  /** What the lines that ran were charged so far. */
  cost_usd: z.number(),
  created_at: z.number(),
});

/** `GET /api/activity/batches?profile=`: the profile key's latest batches (docs/batches.md). */
export const batchesViewSchema = z.object({
  profile: z.string(),
  data: z.array(batchViewSchema),
  fetched_at: z.number(),
});
export type BatchesView = z.infer<typeof batchesViewSchema>;
export type BatchView = BatchesView['data'][number];

/** A batch's id as the gateway makes it; anything else is refused before it reaches a path. */
export const batchIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'is not a batch id');

/**
 * `POST /api/batches`: a JSONL file (its text, read by the page) uploaded with the profile's key
 * and a batch of its lines created for `endpoint` (docs/workbench.md, "Batches").
 */
export const batchCreateRequestSchema = z.object({
  profile: z.string().min(1),
  endpoint: z.enum(openAiBatchEndpoints),
  file_name: z.string().min(1).max(255),
  content: z.string().min(1, 'the file is empty'),
});
export type BatchCreateRequest = z.infer<typeof batchCreateRequestSchema>;

/** `GET /api/batches/:id?profile=` and the body of `POST /api/batches/:id/cancel`. */
export const batchProfileSchema = z.object({ profile: z.string().min(1) });

/** `GET /api/batches/:id/results?profile=&file=`: which of an ended batch's files to download. */
export const batchResultsQuerySchema = z.object({
  profile: z.string().min(1),
  file: z.enum(['output', 'error']),
});
export type BatchResultsFile = z.infer<typeof batchResultsQuerySchema>['file'];

/**
 * The answer of `POST /api/batches`, `GET /api/batches/:id?profile=` and its cancel: the batch,
 * with its output and error files once it has ended (null before, or when it has none).
 */
export const batchDetailViewSchema = z.object({
  profile: z.string(),
  batch: batchViewSchema.extend({
    output_file_id: z.string().nullable(),
    error_file_id: z.string().nullable(),
  }),
  fetched_at: z.number(),
});
export type BatchDetailView = z.infer<typeof batchDetailViewSchema>;

/**
 * `GET /api/session` (and the answer of sign-in and sign-out): whether the workbench asks for a
 * sign-in (WORKBENCH_ACCESS_TOKEN is set) and whether this browser has a session.
 */
export const sessionStateSchema = z.object({
  required: z.boolean(),
  signed_in: z.boolean(),
  /** When the session ends, Unix milliseconds; null without one. */
  expires_at: z.number().nullable(),
  /**
   * Present when people sign in with OpenID Connect (WORKBENCH_OIDC_ISSUER): where the page
   * sends them, and whether the access token form is offered too.
   */
  oidc: z.object({ sign_in_path: z.string(), token_sign_in: z.boolean() }).optional(),
  /** With OpenID Connect on and a session: what it may do (admin: everything; member: its own). */
  role: z.enum(['admin', 'member']).optional(),
  /** A person's session (not the access token's): who signed in. */
  person: z
    .object({
      id: z.string(),
      email: z.string().nullable(),
      name: z.string().nullable(),
      /** The profile holding their own key; null before it exists. */
      profile: z.string().nullable(),
    })
    .optional(),
});
export type SessionState = z.infer<typeof sessionStateSchema>;

/** `POST /api/sign-in` body: the workbench access token, as the person typed it. */
export const signInRequestSchema = z.object({
  token: z.string().min(1, 'enter the access token').max(1024),
});

/**
 * A child key of an account profile, as `GET /api/profiles/:profile/child-keys` lists it: the
 * gateway's key summary (masked, never in full) and the BFF profile that holds its secret.
 * Money fields are null for a shared child (it spends its parent's balance; `remaining_usd` is
 * the parent's).
 */
export const childKeySchema = z.object({
  ...managedKeySchema.omit({ object: true, recharge_usd: true, credit_usd: true }).shape,
  allocated_usd: z.number().nullable(),
  revoked_at: z.number().nullable(),
  /** The workbench profile holding this key's secret (server side), or null when none does. */
  profile: z.string().nullable(),
});
export type ChildKey = z.infer<typeof childKeySchema>;

/** `GET /api/profiles/:profile/child-keys` (`?include_revoked=true` lists revoked ones too). */
export const childKeysSchema = z.object({
  profile: z.string(),
  keys: z.array(childKeySchema),
  /**
   * Where a new key's secret would be kept (a file path, in words); null when the workbench has
   * nowhere to keep one, so creating and rotating keys are refused (`keys_store_advice` says why).
   */
  keys_store: z.string().nullable(),
  keys_store_advice: z.string().optional(),
  fetched_at: z.number(),
});
export type ChildKeys = z.infer<typeof childKeysSchema>;

/** Profile names travel in URLs and menus: kept short and plain (keys file and new profiles). */
export const profileNamePattern = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;

/** A name for a new key profile: what `GET /api/profiles` lists and `?profile=` selects. */
export const profileNameSchema = z
  .string()
  .regex(
    profileNamePattern,
    'must be 1-64 letters, digits, spaces, dots, dashes or underscores, starting with a letter or digit',
  );

/** USD amounts the gateway takes for a key's limit and grace. */
const usdAmountSchema = z.number().min(0, 'must be 0 or more').max(1_000_000);
/** Unix seconds, or null for no expiry. */
const expirySchema = z.number().int('must be Unix seconds (a whole number)').positive().nullable();
const keyNameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters');

/** `POST /api/profiles/:profile/child-keys` body: the new child key, made with the profile's key. */
export const createChildKeyRequestSchema = z.strictObject({
  kind: z.enum(['allocated_child', 'shared_child']),
  name: keyNameSchema,
  /** Allocated children only: given from the account key's own limit (gateway default 10). */
  limit_usd: usdAmountSchema.optional(),
  /** Allocated children only: an admission allowance, not money. */
  grace_usd: usdAmountSchema.optional(),
  expires_at: expirySchema.optional(),
  /** The workbench profile that keeps the new secret; derived from `name` when absent. */
  profile_name: profileNameSchema.optional(),
});
export type CreateChildKeyRequest = z.infer<typeof createChildKeyRequestSchema>;

/**
 * `POST /api/profiles/:profile/child-keys` answer (201). The full key stays on the server: it is
 * kept as the profile `profile.name`, in the file `stored_in` describes.
 */
export const createdChildKeySchema = z.object({
  key: childKeySchema,
  profile: profileSchema,
  /** Where the secret is kept, in words (the file's path). */
  stored_in: z.string(),
});
export type CreatedChildKey = z.infer<typeof createdChildKeySchema>;

/**
 * `POST /api/profiles/:profile/child-keys/hand-over` body: a new child key handed to the person
 * instead of kept as a profile. `show_once` is their confirmation that the key is shown once and
 * the workbench keeps no copy; without it nothing is created.
 */
export const handOverChildKeyRequestSchema = createChildKeyRequestSchema
  .omit({ profile_name: true })
  .extend({
    show_once: z.literal(true, {
      error: 'must be true: confirm that the key is shown once and the workbench keeps no copy',
    }),
  });
export type HandOverChildKeyRequest = z.infer<typeof handOverChildKeyRequestSchema>;

/**
 * `POST /api/profiles/:profile/child-keys/hand-over` answer (201, `Cache-Control: no-store`),
 * and of a rotation handed over (200): the BFF answers that carry a full key. The workbench
 * keeps no copy of `secret`.
 */
export const handedOverChildKeySchema = z.object({
  /** The new key, masked; no profile holds it. */
  key: childKeySchema,
  /** The full key, in this answer only. */
  secret: z.string().regex(/^sk-\S+$/),
});
export type HandedOverChildKey = z.infer<typeof handedOverChildKeySchema>;

/**
 * `POST /api/profiles/:profile/child-keys/:id/rotation/hand-over` body: the same confirmation as
 * handing over a new key. Its answer is a `HandedOverChildKey` (200, `Cache-Control: no-store`):
 * the key, with a new secret the old one stops for.
 */
export const handOverRotationRequestSchema = z.strictObject({
  show_once: handOverChildKeyRequestSchema.shape.show_once,
});
export type HandOverRotationRequest = z.infer<typeof handOverRotationRequestSchema>;

/** `PATCH /api/profiles/:profile/child-keys/:id` body: at least one field. */
export const updateChildKeyRequestSchema = z
  .strictObject({
    name: keyNameSchema.optional(),
    limit_usd: usdAmountSchema.optional(),
    grace_usd: usdAmountSchema.optional(),
    expires_at: expirySchema.optional(),
    disabled: z.boolean().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, {
    message: 'give at least one of name, limit_usd, grace_usd, expires_at, disabled',
  });
export type UpdateChildKeyRequest = z.infer<typeof updateChildKeyRequestSchema>;

/** `PATCH /api/profiles/:profile/child-keys/:id` answer. */
export const updatedChildKeySchema = z.object({ key: childKeySchema });

/**
 * `DELETE /api/profiles/:profile/child-keys/:id` answer (send `{}` as the JSON body). A profile
 * that held the revoked key is removed, so no profile points at a dead key.
 */
export const revokedChildKeySchema = z.object({
  key: childKeySchema,
  /** Profiles that held the key and were removed (from the keys store too). */
  removed_profiles: z.array(z.string()),
  /** What happened to the profiles, in plain words. */
  message: z.string(),
});
export type RevokedChildKey = z.infer<typeof revokedChildKeySchema>;

/** One audited change of a key, as the gateway gives it (without its `object` tag). */
export const childKeyEventSchema = z.object(keyEventSchema.omit({ object: true }).shape);
export type ChildKeyEvent = z.infer<typeof childKeyEventSchema>;

/** `GET /api/profiles/:profile/child-keys/:id/events?limit=&cursor=`: newest first. */
export const childKeyEventsSchema = z.object({
  events: z.array(childKeyEventSchema),
  /** Pass back as `cursor` for older events; null on the last page. */
  next_cursor: z.string().nullable(),
});
export type ChildKeyEvents = z.infer<typeof childKeyEventsSchema>;

/**
 * `GET /api/profiles/:profile/child-keys/:id/rotation/estimate?model=`: the cost of the
 * rotation's verify request (step 3), shown before it runs. The cheapest catalog model unless
 * `model` is given.
 */
export const rotationEstimateSchema = validationEstimateSchema;
export type RotationEstimate = z.infer<typeof rotationEstimateSchema>;

/** `POST /api/profiles/:profile/child-keys/:id/rotation` body. */
export const rotationRequestSchema = z.strictObject({
  /** The profile holding the key to rotate; it is moved to the replacement. */
  profile: z.string().min(1),
  /** The verify request's model (the estimate's); the cheapest catalog model when absent. */
  model: z.string().min(1).optional(),
});
export type RotationRequest = z.infer<typeof rotationRequestSchema>;

/** The four rotation steps (create, repoint, verify, revoke), in order. */
export const rotationStepNameSchema = z.enum([
  'create_replacement',
  'update_profile',
  'verify',
  'revoke_old',
]);
export type RotationStepName = z.infer<typeof rotationStepNameSchema>;

/** A progress line of the rotation stream: a step starting, done or failed. */
export const rotationStepLineSchema = z.object({
  step: z.number().int().min(1).max(4),
  name: rotationStepNameSchema,
  status: z.enum(['running', 'done', 'failed']),
  /** What happened, in plain words (masked keys only). */
  detail: z.string(),
  /** Step 3: the verify request's trace id and charge, when the gateway sent them. */
  cf_ray: z.string().nullable().optional(),
  cost_usd: z.number().nullable().optional(),
});
export type RotationStepLine = z.infer<typeof rotationStepLineSchema>;

/** The last line of the rotation stream: how it ended and what state the keys are in. */
export const rotationDoneLineSchema = z.object({
  done: z.literal(true),
  ok: z.boolean(),
  /** The step that failed; null when all four were done. */
  failed_step: z.number().int().min(1).max(4).nullable(),
  /** The keys' state, in plain words. */
  state: z.string(),
  /** What to do now, in plain words. */
  advice: z.string(),
  profile: z.string(),
  /** The key the profile uses now (masked). */
  profile_key: z.object({ id: z.string(), key: z.string() }),
  old_key: z.object({ id: z.string(), revoked: z.boolean() }),
  /** The replacement, once created; `revoked` when a failure took it back. */
  new_key: z.object({ id: z.string(), key: z.string(), revoked: z.boolean() }).nullable(),
});
export type RotationDoneLine = z.infer<typeof rotationDoneLineSchema>;

/**
 * The rotation answer is NDJSON (`application/x-ndjson`): step lines as each step starts and
 * ends, then one done line. Errors found before step 1 starts are ordinary JSON API errors.
 */
export const rotationLineSchema = z.union([rotationStepLineSchema, rotationDoneLineSchema]);
export type RotationLine = z.infer<typeof rotationLineSchema>;

/**
 * `GET /api/profiles/:profile/webhooks`: an account profile's notification endpoints (the
 * gateway's `/v1/webhooks`). Never a signing secret: that is in the creation's answer only.
 */
export const profileWebhooksSchema = z.object({
  profile: z.string(),
  webhooks: z.array(webhookSchema),
  fetched_at: z.number(),
});
export type ProfileWebhooks = z.infer<typeof profileWebhooksSchema>;

/**
 * `POST /api/profiles/:profile/webhooks` answer (201, `Cache-Control: no-store`): the one BFF
 * answer that carries a webhook's signing secret. The workbench keeps no copy of it.
 */
export const createdProfileWebhookSchema = z.object({
  webhook: webhookSchema,
  /** `whsec_…`, in this answer only. */
  secret: z.string().regex(/^whsec_\S+$/),
});
export type CreatedProfileWebhook = z.infer<typeof createdProfileWebhookSchema>;

/** `GET` and `PATCH /api/profiles/:profile/webhooks/:id`. */
export const profileWebhookSchema = z.object({ webhook: webhookSchema });
export type ProfileWebhook = z.infer<typeof profileWebhookSchema>;

/** `DELETE /api/profiles/:profile/webhooks/:id`. */
export const deletedProfileWebhookSchema = z.object({
  id: z.string(),
  deleted: z.literal(true),
});
export type DeletedProfileWebhook = z.infer<typeof deletedProfileWebhookSchema>;

/** `POST /api/profiles/:profile/webhooks/:id/test`: the test delivery after its first try. */
export const webhookTestResultSchema = z.object({ delivery: webhookDeliverySchema });
export type WebhookTestResult = z.infer<typeof webhookTestResultSchema>;

/** `GET /api/profiles/:profile/webhooks/:id/deliveries?limit=`: newest first. */
export const webhookDeliveriesSchema = z.object({ deliveries: z.array(webhookDeliverySchema) });
export type WebhookDeliveries = z.infer<typeof webhookDeliveriesSchema>;
