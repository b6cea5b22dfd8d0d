/**
 * The workbench BFF's JSON API under `/api`: the server writes these shapes, the browser parses
 * them. No shape here ever carries a full key; keys appear only masked.
 */
import { z } from 'zod';
import { balanceSchema, keyKindSchema } from './gateway';

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
    /** What to do next, in plain words (the spec's advice where it has one). */
    advice: z.string().optional(),
    /** The gateway's machine-readable error type, when it sent one. */
    type: z.string().optional(),
  }),
});
export type ApiError = z.infer<typeof apiErrorSchema>;

/** `GET /api/health` */
export const healthSchema = z.object({
  mode: z.enum(['embedded', 'external']),
  gateway_base_url: z.string(),
  reachable: z.boolean(),
  latency_ms: z.number().nullable(),
  error: z.string().optional(),
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

/** The derived key state (the spec's states, plus `blocked` when inference says 402 anyway). */
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
  /** The spec's guidance for this state, in plain words. */
  guidance: z.string(),
  cf_ray: z.string().nullable(),
  fetched_at: z.number(),
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

/** `POST /api/chat` body: a profile name and a chat-completion request for the gateway. */
export const chatRequestSchema = z.object({
  profile: z.string().min(1),
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

/** `GET /api/validate-key/estimate?profile=&model=&max_tokens=`: the cost before it runs. */
export const validationEstimateSchema = z.object({
  model: z.string(),
  max_tokens: z.number(),
  estimated_cost_usd: z.number(),
  /** Set when the estimate is unsure, e.g. the catalog gives no price for the model. */
  note: z.string().optional(),
});

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
  /** The spec entry, e.g. `Chat completions (streaming)`. */
  entry: z.string(),
  method: z.string(),
  path: z.string(),
  /** `none`, `bearer`, `query`, `x-api-key`, `x-goog-api-key`, `bearer-on-vendor-b`. */
  auth_form: z.string(),
  planned: z.boolean(),
  /** True when the check runs inference and so costs money. */
  paid: z.boolean(),
  estimated_cost_usd: z.number(),
  outcome: checkOutcomeSchema,
  status: z.number().nullable(),
  latency_ms: z.number().nullable(),
  cf_ray: z.string().nullable(),
  explanation: z.string(),
  ran_at: z.number().nullable(),
});
export type CheckResult = z.infer<typeof checkResultSchema>;

/** `POST /api/checks` body: which profile, whether paid checks may run, optionally which ones. */
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
});
export type ChecksReport = z.infer<typeof checksReportSchema>;
