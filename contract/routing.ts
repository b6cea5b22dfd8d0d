/**
 * Routing a client or a team can name (docs/routing.md): provider preferences per request in
 * OpenRouter's shape, fallback models, and the server-side names (aliases `<namespace>/<name>`,
 * presets `@preset/<slug>`). The gateway validates requests, the providers file and the admin API
 * with these schemas; the OpenAPI document shows them.
 * @see https://openrouter.ai/docs/features/provider-routing
 * @see https://openrouter.ai/docs/features/presets
 */
import { z } from 'zod';

/** The request header that carries provider preferences on every form (JSON, the body's shape). */
export const providerPreferencesHeader = 'x-gateway-provider-preferences';

const providerIds = z.array(z.string().min(1)).max(64);

/** How routes are ordered: cheapest first, fastest answer first, or most tokens per second first. */
export const providerSortSchema = z.enum(['price', 'latency', 'throughput']);
export type ProviderSort = z.infer<typeof providerSortSchema>;

/** USD per million tokens, as OpenRouter takes `max_price`. */
const perMillion = z.number().min(0);

/**
 * Provider preferences, OpenRouter's `provider` object. Options the gateway does not honour
 * (`data_collection`, `zdr`…) pass validation and are dropped and reported.
 */
export const providerPreferencesSchema = z
  .looseObject({
    order: providerIds
      .optional()
      .meta({ description: 'Provider ids to try first, in this order.' }),
    only: providerIds.optional().meta({ description: 'Only these providers may answer.' }),
    ignore: providerIds.optional().meta({ description: 'These providers never answer.' }),
    allow_fallbacks: z.boolean().optional().meta({
      description: 'false: only the first provider (or those in `order`) is tried; default true.',
    }),
    sort: providerSortSchema.optional().meta({
      description:
        'price: cheapest first; latency: fastest median answer (last 30 minutes) first; throughput: most output tokens per second first. Providers without traffic go last, in file order.',
    }),
    max_price: z
      .looseObject({
        prompt: perMillion.optional(),
        completion: perMillion.optional(),
      })
      .optional()
      .meta({
        description:
          'USD per million tokens: no provider priced above it is tried; with none left the request is refused (400), nothing charged.',
      }),
    require_parameters: z.boolean().optional().meta({
      description:
        'true: refuse (400, naming the field) what the chosen provider cannot honour, instead of dropping it.',
    }),
  })
  .meta({ description: "Provider preferences (OpenRouter's `provider` object)." });
export type ProviderPreferencesBody = z.infer<typeof providerPreferencesSchema>;

/** The options honoured; any other is dropped and named in `x-gateway-dropped-params`. */
export const HONOURED_PROVIDER_OPTIONS: ReadonlySet<string> = new Set([
  'order',
  'only',
  'ignore',
  'allow_fallbacks',
  'sort',
  'max_price',
  'require_parameters',
]);
/** Of `max_price`, the limits honoured (OpenRouter's `request` and `image` are dropped). */
export const HONOURED_MAX_PRICES: ReadonlySet<string> = new Set(['prompt', 'completion']);

/** How many fallback models a request may name. */
export const MAX_FALLBACK_MODELS = 8;

/** Fallback models: tried in order once the first model's routes have failed. */
export const fallbackModelsSchema = z.array(z.string().min(1)).max(MAX_FALLBACK_MODELS).meta({
  description:
    "Fallback models (or aliases), tried in order after the request's model fails in a way that may be retried.",
});

/** An alias id: `<namespace>/<name>`, like a catalog id. */
export const aliasIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\/[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, {
    message: 'expected an alias id like "team/coder"',
  });

export const PRESET_PREFIX = '@preset/';
/** A preset id: `@preset/<slug>`. */
export const presetIdSchema = z.string().regex(/^@preset\/[a-z0-9][a-z0-9._-]{0,63}$/, {
  message:
    'expected a preset id like "@preset/reviewer" (lower-case letters, digits, ".", "_", "-")',
});

/**
 * Why a route was not tried because of the request's preferences, as its attempt's `status` in
 * the generation record: not in `only`, in `ignore`, over `max_price`, `allow_fallbacks: false`.
 */
export const PREFERENCE_SKIPS = [
  'not_in_only',
  'ignored',
  'over_max_price',
  'no_fallbacks',
] as const;
export type PreferenceSkip = (typeof PREFERENCE_SKIPS)[number];

/** The attempts of a record that were made (or skipped by a breaker), without preference skips. */
export const triedAttempts = <Attempt extends { status: number | string }>(
  attempts: readonly Attempt[],
): Attempt[] =>
  attempts.filter((attempt) => !(PREFERENCE_SKIPS as readonly unknown[]).includes(attempt.status));

/** A pool of models behind one name, tried in order or by `sort`. */
export const aliasSchema = z.strictObject({
  id: aliasIdSchema,
  name: z.string().min(1).optional(),
  models: z.array(z.string().min(1)).min(1).max(16),
  sort: providerSortSchema.optional(),
});
export type AliasDefinition = z.infer<typeof aliasSchema>;

/** The request parameters a preset may default; the request's own win. */
export const presetParametersSchema = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  max_tokens: z.number().int().positive().optional(),
  seed: z.number().int().optional(),
  stop: z.array(z.string()).max(4).optional(),
});

/** A stored request shape: its model, fallbacks, provider preferences, system prompt, defaults. */
export const presetSchema = z.strictObject({
  id: presetIdSchema,
  name: z.string().min(1).optional(),
  /** A catalog model or an alias. */
  model: z.string().min(1),
  models: fallbackModelsSchema.optional(),
  provider: providerPreferencesSchema.optional(),
  /** Added before the request's own system prompt, never replacing it. */
  system: z.string().min(1).max(100_000).optional(),
  parameters: presetParametersSchema.optional(),
});
export type PresetDefinition = z.infer<typeof presetSchema>;

/** `GET /admin/v1/presets`. */
export const presetListSchema = z.object({
  object: z.literal('list'),
  data: z.array(presetSchema),
});
