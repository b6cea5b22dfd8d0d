/**
 * Wire schemas of the gateway's public `/v1` API that more than one side reads: the gateway
 * writes them, the workbench's BFF parses them. Parse only the fields used and stay lenient on
 * the rest (the catalog's fields may change from one gateway version to the next), so an added
 * field never breaks a reader.
 */
import { z } from 'zod';
import { generationWireShape } from './generation-record-wire';

/** The three kinds of key (docs/keys-and-money.md). */
export const keyKindSchema = z.enum(['account', 'allocated_child', 'shared_child']);
export type KeyKind = z.infer<typeof keyKindSchema>;

/** How often a key's limit renews, at 00:00 UTC (weeks from Monday, months from the 1st). */
export const limitResetSchema = z.enum(['none', 'daily', 'weekly', 'monthly']);
export type LimitReset = z.infer<typeof limitResetSchema>;

/** One catalog entry of `GET /v1/models`. Everything but `id` is optional for readers. */
export const modelEntrySchema = z.looseObject({
  id: z.string(),
  object: z.string().optional(),
  name: z.string().optional(),
  created: z.number().optional(),
  owned_by: z.string().optional(),
  description: z.string().optional(),
  context_length: z.number().nullable().optional(),
  pricing: z
    .looseObject({
      /** USD per prompt token, as a decimal string. */
      prompt: z.string().optional(),
      /** USD per completion token, as a decimal string. */
      completion: z.string().optional(),
    })
    .optional(),
  architecture: z
    .looseObject({
      input_modalities: z.array(z.string()).optional(),
      output_modalities: z.array(z.string()).optional(),
    })
    .optional(),
  supported_parameters: z.array(z.string()).optional(),
  /** Ids of the providers serving the model, in the order the gateway tries them. */
  providers: z.array(z.string()).optional(),
});
export type ModelEntry = z.infer<typeof modelEntrySchema>;

export const modelListSchema = z.looseObject({
  object: z.literal('list').optional(),
  data: z.array(z.unknown()),
});

/**
 * One provider of `GET /v1/models/{author}/{model}/endpoints` (the "provider endpoints of a
 * model"). Everything but `provider` is optional for readers.
 */
export const modelEndpointSchema = z.looseObject({
  /** The member model this provider serves, when the list is an alias's or a preset's. */
  model: z.string().optional(),
  /** The provider's id, as generation records and `x-gateway-provider` name it. */
  provider: z.string(),
  /** `openai-compatible`, `anthropic`, `gemini` or `simulated`. */
  kind: z.string().nullable().optional(),
  /** The model name this provider is asked for. */
  upstream_model: z.string().optional(),
  /** 1 for the provider tried first; the next takes over when one fails before answering. */
  order: z.number().optional(),
  /** This provider's own prices: USD per token, as decimal strings. */
  pricing: z
    .looseObject({ prompt: z.string().optional(), completion: z.string().optional() })
    .optional(),
  context_length: z.number().nullable().optional(),
  max_completion_tokens: z.number().nullable().optional(),
  /** `healthy`, or `cooling_down` after repeated failures (then skipped until `retry_after`). */
  status: z.string().optional(),
  /** Seconds until a cooling-down provider is tried again; null when healthy. */
  retry_after: z.number().nullable().optional(),
  /** Share of this provider's attempts (all keys) that began an answer, last 30 minutes; null without traffic. */
  uptime_last_30m: z.number().nullable().optional(),
  /** Median latency of completed answers (answering attempt's start to end), last 30 minutes, ms; null without data. */
  latency_ms_p50: z.number().nullable().optional(),
  /** Median time from the answering attempt's start to its first event, last 30 minutes, ms. */
  ttft_ms_p50: z.number().nullable().optional(),
});
export type ModelEndpoint = z.infer<typeof modelEndpointSchema>;

/** Failed provider attempts by kind (timeouts, 5xx, 429, unreachable, anything else). */
export const endpointFailuresSchema = z.object({
  timeout: z.number().int(),
  server_error: z.number().int(),
  rate_limited: z.number().int(),
  connection: z.number().int(),
  other: z.number().int(),
});

/** One bucket of one provider's series: attempts by outcome and latency figures. */
export const endpointStatsBucketSchema = z.object({
  /** Unix seconds: the bucket's start. */
  start: z.number().int(),
  /** Attempts counted: successes plus failures. */
  requests: z.number().int(),
  successes: z.number().int(),
  failures: endpointFailuresSchema,
  /** successes / requests; null without traffic. */
  uptime: z.number().nullable(),
  latency_ms_p50: z.number().nullable(),
  latency_ms_p95: z.number().nullable(),
  ttft_ms_p50: z.number().nullable(),
  /** Output tokens per second once the first event came; null without data. */
  output_tokens_per_second: z.number().nullable(),
});
export type EndpointStatsBucket = z.infer<typeof endpointStatsBucketSchema>;

/** `GET /v1/models/{author}/{model}/endpoints/stats`: every provider's series, oldest bucket first. */
export const modelEndpointStatsSchema = z.object({
  object: z.literal('endpoint_stats'),
  model: z.string(),
  window: z.enum(['24h', '7d']),
  bucket_seconds: z.number().int(),
  data: z.array(z.object({ provider: z.string(), buckets: z.array(endpointStatsBucketSchema) })),
});
export type ModelEndpointStats = z.infer<typeof modelEndpointStatsSchema>;

/** `GET /v1/models/{author}/{model}/endpoints`; each entry is read alone (see above). */
export const modelEndpointListSchema = z.looseObject({
  object: z.literal('list').optional(),
  model: z.string().optional(),
  data: z.array(z.unknown()),
});

/** `GET /v1/balance`. */
export const balanceSchema = z.looseObject({
  object: z.literal('balance'),
  key: z.string(),
  identity: keyKindSchema,
  remaining_usd: z.number(),
  limit_usd: z.number(),
  recharge_usd: z.number(),
  credit_usd: z.number(),
  allocated_usd: z.number(),
  consumption_usd: z.number(),
  /**
   * Charged to the key's records and not settled into `consumption_usd` yet; what is left is
   * `remaining_usd - pending_usd`. Optional: older gateways omit it.
   */
  pending_usd: z.number().optional(),
  grace_usd: z.number(),
  expires_at: z.number().int().nullable(),
  expired: z.boolean(),
  disabled: z.boolean(),
  settlement: z.literal('asynchronous'),
  note: z.string(),
  /** Optional: older gateways omit the period and model fields. */
  limit_reset: limitResetSchema.optional(),
  period_started_at: z.number().int().nullable().optional(),
  resets_at: z.number().int().nullable().optional(),
  /** The models the key may use (ids and patterns): its own list and its parent's; null: none. */
  allowed_models: z.array(z.string()).nullable().optional(),
  parent_allowed_models: z.array(z.string()).nullable().optional(),
});
export type Balance = z.infer<typeof balanceSchema>;

/** `GET /v1/key`: the key's state, including a refusal because of its parent (`blocked`). */
export const keyStatusSchema = z.looseObject({
  object: z.literal('key'),
  id: z.string(),
  key: z.string(),
  identity: keyKindSchema,
  state: z.enum(['active', 'expired', 'disabled', 'depleted', 'blocked']),
  can_spend: z.boolean(),
  blocked_by: z.looseObject({ reason: z.string(), message: z.string() }).nullable(),
  expires_at: z.number().int().nullable(),
  allowed_models: z.array(z.string()).nullable().optional(),
  parent_allowed_models: z.array(z.string()).nullable().optional(),
});
export type KeyStatus = z.infer<typeof keyStatusSchema>;

/** Where in the request's life an error happened. */
export const errorStageSchema = z.enum([
  'authentication',
  'admission',
  'validation',
  'provider',
  'settlement',
  'internal',
]);
export type ErrorStage = z.infer<typeof errorStageSchema>;

/** The one error shape of the gateway's chat-completion-form `/v1` routes. */
export const gatewayErrorBodySchema = z.looseObject({
  error: z.string(),
  type: z.string().optional(),
  stage: errorStageSchema.optional(),
  request_id: z.string().optional(),
  retry_after: z.number().optional(),
});
export type GatewayErrorBody = z.infer<typeof gatewayErrorBodySchema>;

/** Token usage as the gateway reports it, with the request's cost in USD. */
export const usageSchema = z.looseObject({
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  total_tokens: z.number(),
  cost: z.number().optional(),
  /** Of `completion_tokens`, those the model spent reasoning. */
  completion_tokens_details: z
    .looseObject({ reasoning_tokens: z.number().optional() })
    .nullable()
    .optional(),
});
export type Usage = z.infer<typeof usageSchema>;

export const toolCallSchema = z.looseObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

export const chatCompletionSchema = z.looseObject({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number(),
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: z.number(),
      message: z.looseObject({
        role: z.string(),
        content: z.string().nullable(),
        /** The model's reasoning text (OpenRouter's field), when it shows it. */
        reasoning: z.string().nullable().optional(),
        tool_calls: z.array(toolCallSchema).optional(),
      }),
      finish_reason: z.string().nullable(),
    }),
  ),
  usage: usageSchema.optional(),
});
export type ChatCompletion = z.infer<typeof chatCompletionSchema>;

export const chatCompletionChunkSchema = z.looseObject({
  id: z.string(),
  object: z.literal('chat.completion.chunk'),
  created: z.number(),
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: z.number(),
      delta: z.looseObject({
        role: z.string().optional(),
        content: z.string().nullable().optional(),
        /** A piece of the model's reasoning text (OpenRouter's field). */
        reasoning: z.string().nullable().optional(),
        tool_calls: z
          .array(
            z.looseObject({
              index: z.number(),
              id: z.string().optional(),
              type: z.literal('function').optional(),
              function: z
                .looseObject({ name: z.string().optional(), arguments: z.string().optional() })
                .optional(),
            }),
          )
          .optional(),
      }),
      finish_reason: z.string().nullable(),
    }),
  ),
  usage: usageSchema.nullable().optional(),
});
export type ChatCompletionChunk = z.infer<typeof chatCompletionChunkSchema>;

export { translationReportSchema, type TranslationReport } from './translation-report';

/** `POST /v1/embeddings` answer, OpenAI's shape; `usage.cost` is the gateway's charge in USD. */
export const embeddingsResponseSchema = z.looseObject({
  model: z.string().optional(),
  data: z.array(z.looseObject({ index: z.number().int().min(0), embedding: z.array(z.number()) })),
  usage: z
    .looseObject({
      prompt_tokens: z.number(),
      total_tokens: z.number().optional(),
      cost: z.number().optional(),
    })
    .optional(),
});
export type EmbeddingsResponse = z.infer<typeof embeddingsResponseSchema>;

/**
 * `GET /v1/generation?id=<trace id>`: the generation record of one request, its fields as
 * generation-record.ts defines them (generation-record-wire.ts).
 */
export const generationRecordSchema = z.looseObject({
  object: z.literal('generation'),
  ...generationWireShape,
  /**
   * The child key that made the request, when an account key reads a child's record (its id,
   * name and masked key); null for the presenting key's own records.
   */
  child: z.looseObject({ id: z.string(), name: z.string(), key: z.string() }).nullable().optional(),
});
export type GenerationRecord = z.infer<typeof generationRecordSchema>;

/**
 * `GET /v1/generations`: a page of records, newest first. Pass `next_cursor` back as `?cursor=`
 * (with the same filters) for the next page; it is null on the last one.
 */
export const generationListSchema = z.looseObject({
  object: z.literal('list'),
  data: z.array(generationRecordSchema),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});
export type GenerationList = z.infer<typeof generationListSchema>;

/** Requests, tokens and cost (USD, exact to the nano) of some records. */
const activityFiguresShape = {
  requests: z.number(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  cost_usd: z.number(),
};

/** One UTC day of `GET /v1/activity`: its totals and one entry per model used that day. */
export const activityDaySchema = z.looseObject({
  /** `YYYY-MM-DD`, UTC. */
  date: z.string(),
  ...activityFiguresShape,
  models: z.array(z.looseObject({ model: z.string(), ...activityFiguresShape })),
});
export type ActivityDay = z.infer<typeof activityDaySchema>;

/** `GET /v1/activity?days=N`: every day of the range, oldest first, days without requests too. */
export const activitySchema = z.looseObject({
  object: z.literal('activity'),
  days: z.number(),
  from: z.string(),
  to: z.string(),
  data: z.array(activityDaySchema),
  totals: z.looseObject(activityFiguresShape),
});
export type Activity = z.infer<typeof activitySchema>;

/**
 * `GET /v1/activity/sessions?days=N`: the agent sessions of the range (records with a
 * `session_id`), the latest active first: each one's requests, time, tokens, cache hits and cost.
 */
export const sessionActivitySchema = z.looseObject({
  object: z.literal('list'),
  days: z.number(),
  data: z.array(
    z.looseObject({
      session_id: z.string(),
      ...activityFiguresShape,
      /** Unix seconds: its first request's start and its last one's end. */
      started_at: z.number(),
      ended_at: z.number(),
      duration_seconds: z.number(),
      cache_read_tokens: z.number(),
      /** Requests that read from the prompt cache. */
      cache_hits: z.number(),
    }),
  ),
});
export type SessionActivity = z.infer<typeof sessionActivitySchema>;

/** A key's state as the key-management routes report it. */
export const managedKeyStateSchema = z.enum([
  'active',
  'expired',
  'disabled',
  'depleted',
  'blocked',
  'revoked',
]);

/**
 * A key as `GET /v1/keys` and `/admin/v1/keys` show it: masked, never in full. Money fields are
 * null for a shared child (it spends its parent's balance; `remaining_usd` is the parent's).
 */
export const managedKeySchema = z.looseObject({
  object: z.literal('api_key'),
  id: z.string(),
  kind: keyKindSchema,
  parent_id: z.string().nullable(),
  name: z.string(),
  /** Masked: prefix and a short tail. */
  key: z.string(),
  state: z.string(),
  limit_usd: z.number().nullable(),
  grace_usd: z.number().nullable(),
  consumption_usd: z.number().nullable(),
  /**
   * Charges recorded but not yet settled into `consumption_usd` (settlement runs every
   * `GATEWAY_SETTLE_INTERVAL_MS`); null for a shared child. Optional: older gateways omit it.
   */
  pending_usd: z.number().nullable().optional(),
  remaining_usd: z.number().nullable(),
  recharge_usd: z.number().nullable().optional(),
  credit_usd: z.number().nullable().optional(),
  allocated_usd: z.number().nullable().optional(),
  expires_at: z.number().int().nullable(),
  disabled: z.boolean(),
  created_at: z.number(),
  revoked_at: z.number().nullable().optional(),
  /** Optional: older gateways omit the period and model fields. */
  limit_reset: limitResetSchema.optional(),
  period_started_at: z.number().int().nullable().optional(),
  resets_at: z.number().int().nullable().optional(),
  allowed_models: z.array(z.string()).nullable().optional(),
});
export type ManagedKey = z.infer<typeof managedKeySchema>;

/** `GET /v1/keys/{id}/periods`: a key's past budget periods, newest first. */
export const keyPeriodListSchema = z.looseObject({
  object: z.literal('list'),
  data: z.array(
    z.looseObject({
      object: z.literal('key_period'),
      started_at: z.number().int(),
      ended_at: z.number().int(),
      limit_usd: z.number(),
      consumption_usd: z.number(),
    }),
  ),
});

export const managedKeyListSchema = z.looseObject({
  object: z.literal('list'),
  data: z.array(managedKeySchema),
});

/** The answer of create and rotate: the only answers that ever carry a full key. */
export const issuedKeySchema = z.looseObject({
  object: z.literal('issued_key'),
  /** The full key, shown once. */
  key: z.string(),
  data: managedKeySchema,
});
export type IssuedKeyAnswer = z.infer<typeof issuedKeySchema>;

/** One audited change of a key: who, what, when, the old and new values (never a key). */
export const keyEventSchema = z.looseObject({
  object: z.literal('key_event'),
  id: z.number(),
  key_id: z.string(),
  /** The acting key's id, `admin` (operator routes), `cli` (command line) or `system`. */
  actor: z.string(),
  /** `create`, `update`, `disable`, `enable`, `rotate`, `revoke`, `recharge`, `credit`, `allocate`, `return`. */
  action: z.string(),
  changes: z.record(z.string(), z.looseObject({ old: z.unknown(), new: z.unknown() })),
  note: z.string().nullable(),
  created_at: z.number(),
});
export type KeyEvent = z.infer<typeof keyEventSchema>;

/** `GET /v1/keys/{id}/events`: newest first, paged like the generations. */
export const keyEventListSchema = z.looseObject({
  object: z.literal('list'),
  data: z.array(keyEventSchema),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});

/** The `cf-ray` trace id format: 16 hex digits, a dash, a location code. */
export const cfRayPattern = /^[0-9a-f]{16}-[A-Z]{3}$/;

/** A provider id as the providers file allows it (docs/providers.md). */
export const providerIdPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Inference answers name the provider that answered in this header. */
export const gatewayProviderHeader = 'x-gateway-provider';
/** Inference answers that took more than one provider attempt say how many in this header. */
export const gatewayAttemptsHeader = 'x-gateway-attempts';
/**
 * Inference answers: the time the gateway itself added, in milliseconds to 0.01 (its time minus
 * the waits on the provider); for a stream, up to its first byte (docs/operations.md).
 */
export const gatewayOverheadHeader = 'x-gateway-overhead-ms';
/**
 * Inference answers: what the gateway dropped (dotted paths) or changed (`max_tokens=32000->8192`)
 * to reach the provider, comma-separated; absent when nothing (docs/translation.md).
 */
export const gatewayDroppedParamsHeader = 'x-gateway-dropped-params';
export const gatewayAdjustedParamsHeader = 'x-gateway-adjusted-params';
