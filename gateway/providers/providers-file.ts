/**
 * The providers file (`GATEWAY_PROVIDERS`, docs/providers.md): read and validated
 * once at start-up. A bad file stops the gateway with the file, the JSON path and what is wrong;
 * a missing key variable gets its own message. The file never holds a key: each provider names
 * the environment variable that does, and header fields that would carry one are refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import {
  aliasSchema,
  presetSchema,
  type AliasDefinition,
  type PresetDefinition,
} from '../../contract/routing';
import { parseUsdToNanos } from '../shared/money';
import { simulatedModels } from './simulated/models';
import {
  defaultBreaker,
  defaultRetry,
  defaultTimeouts,
  type ProviderConfig,
} from './upstream/provider-config';

export class ProvidersFileError extends Error {}

const decimalUsd = z.string().refine((value) => parseUsdToNanos(value) !== null, {
  message: 'expected a decimal USD string with at most 9 decimals, e.g. "0.0000025"',
});

const positiveInteger = z.number().int().positive();
const milliseconds = z.number().int().min(1).max(3_600_000);

/** Headers that carry credentials: keys come from the environment, never from this file. */
const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'x-goog-api-key', 'api-key', 'cookie'];

const outputModalities = z.array(z.enum(['text', 'embeddings'])).min(1);

const modelSchema = z.looseObject({
  id: z
    .string()
    .regex(/^[^/\s]+\/[^\s]+$/, { message: 'expected a catalog id like "author/model[:variant]"' }),
  upstream_model: z.string().min(1),
  name: z.string().min(1),
  description: z.string().optional(),
  context_length: positiveInteger,
  max_completion_tokens: positiveInteger,
  pricing: z.looseObject({
    prompt: decimalUsd,
    completion: decimalUsd,
    /** Per prompt token read from, and written to, the upstream's prompt cache (OpenRouter's names). */
    input_cache_read: decimalUsd.optional(),
    input_cache_write: decimalUsd.optional(),
    input_cache_write_1h: decimalUsd.optional(),
    /** Optional bookkeeping: which price list these come from, and since when. */
    version: z.string().optional(),
    as_of: z.string().optional(),
  }),
  input_modalities: z.array(z.enum(['text', 'image'])).min(1),
  /** `["embeddings"]` marks an embedding model, as the catalog's `architecture` does. */
  output_modalities: outputModalities.optional(),
  architecture: z.looseObject({ output_modalities: outputModalities.optional() }).optional(),
  supported_parameters: z.array(z.string()),
});

const providerSchema = z
  .looseObject({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, {
      message: 'expected letters, digits, ".", "_" or "-" (at most 64)',
    }),
    kind: z.enum(['openai-compatible', 'anthropic', 'gemini', 'simulated']),
    base_url: z
      .string()
      .refine((value) => /^https?:\/\/[^\s]+$/.test(value) && URL.canParse(value), {
        message: 'expected an http(s) URL',
      })
      .optional(),
    api_key_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'expected an environment variable name' })
      .optional(),
    timeouts: z
      .strictObject({
        connect_ms: milliseconds.optional(),
        first_byte_ms: milliseconds.optional(),
        idle_ms: milliseconds.optional(),
        first_event_ms: milliseconds.optional(),
        total_ms: milliseconds.optional(),
      })
      .optional(),
    retry: z
      .strictObject({
        max_attempts: z.number().int().min(1).max(10).optional(),
        base_delay_ms: z.number().int().min(0).max(60_000).optional(),
        max_delay_ms: z.number().int().min(0).max(60_000).optional(),
      })
      .optional(),
    breaker: z
      .strictObject({
        failure_threshold: z.number().int().min(1).max(1_000).optional(),
        cooldown_ms: milliseconds.optional(),
      })
      .optional(),
    headers: z
      .record(
        z.string().regex(/^[A-Za-z0-9-]+$/, { message: 'expected a header name' }),
        z.string(),
      )
      .refine(
        (headers) =>
          !Object.keys(headers).some((name) => CREDENTIAL_HEADERS.includes(name.toLowerCase())),
        {
          message:
            'must not hold credentials: the key comes from the variable named in api_key_env',
        },
      )
      .optional(),
    inline_image_urls: z.boolean().optional(),
    /** An openai-compatible upstream that also serves `POST /responses` (OpenAI itself). */
    responses_api: z.boolean().optional(),
    models: z.array(modelSchema),
  })
  .superRefine((provider, context) => {
    if (provider.kind === 'simulated') return;
    for (const field of ['base_url', 'api_key_env'] as const) {
      if (provider[field] === undefined) {
        context.addIssue({
          code: 'custom',
          path: [field],
          message: `required for kind '${provider.kind}'`,
        });
      }
    }
  });

const fileSchema = z.looseObject({
  /** Whether the simulated models stay in the catalog beside the file's (default true). */
  include_simulated_models: z.boolean().optional(),
  providers: z.array(providerSchema),
  /** Server-side routing names (docs/routing.md): pools of models, and stored request shapes. */
  aliases: z.array(aliasSchema).optional(),
  presets: z.array(presetSchema).optional(),
});

export type SimulatedProviderEntry = {
  id: string;
  models: ProviderConfig['models'];
};

export type ProvidersFile = {
  includeSimulatedModels: boolean;
  upstream: ProviderConfig[];
  /** Providers of kind `simulated`: the simulated engine under another id (for trying fallbacks). */
  simulated: SimulatedProviderEntry[];
  /** Every provider id, in file order (the order models fall back in). */
  order: string[];
  /** Aliases and presets, each member checked to name a model of the catalog (or an alias). */
  aliases?: AliasDefinition[];
  presets?: PresetDefinition[];
};

/** Reads and validates the file; `environment` supplies the keys it names. */
export function loadProvidersFile(filePath: string, environment: NodeJS.ProcessEnv): ProvidersFile {
  const shown = path.resolve(filePath);
  let text: string;
  try {
    text = fs.readFileSync(shown, 'utf8');
  } catch (error) {
    throw new ProvidersFileError(
      `${shown}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ProvidersFileError(`${shown}: not valid JSON (${(error as Error).message}).`);
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ProvidersFileError(`${shown}: ${jsonPath(issue.path)}: ${issue.message}`);
  }

  const seenProviders = new Set<string>();
  /** Each model id's output, so that no id is an embedding model at one provider and chat at another. */
  const outputsById = new Map<string, string>();
  const upstream: ProviderConfig[] = [];
  const simulated: SimulatedProviderEntry[] = [];
  parsed.data.providers.forEach((provider, index) => {
    if (seenProviders.has(provider.id) || provider.id === 'simulated') {
      throw new ProvidersFileError(
        `${shown}: providers[${index}].id: '${provider.id}' is ${provider.id === 'simulated' ? 'reserved for the built-in simulated provider' : 'used twice'}.`,
      );
    }
    seenProviders.add(provider.id);
    const seenModels = new Set<string>();
    const models = provider.models.map((model, modelIndex) => {
      if (seenModels.has(model.id)) {
        throw new ProvidersFileError(
          `${shown}: providers[${index}].models[${modelIndex}].id: '${model.id}' is listed twice by this provider.`,
        );
      }
      seenModels.add(model.id);
      const outputs = model.output_modalities ?? model.architecture?.output_modalities ?? ['text'];
      const where = `${shown}: providers[${index}].models[${modelIndex}]`;
      if (outputs.includes('embeddings') && provider.kind === 'anthropic') {
        throw new ProvidersFileError(
          `${where}: '${model.id}' is an embedding model, but kind 'anthropic' has no embeddings API. Serve it from an openai-compatible or gemini provider.`,
        );
      }
      const known = outputsById.get(model.id);
      if (known !== undefined && known !== outputs.join(',')) {
        throw new ProvidersFileError(
          `${where}: '${model.id}' has output modalities ${outputs.join(', ')} here and ${known} at an earlier provider; one catalog id is one kind of model.`,
        );
      }
      outputsById.set(model.id, outputs.join(','));
      return {
        id: model.id,
        name: model.name,
        providerId: provider.id,
        upstreamModel: model.upstream_model,
        promptNanos: parseUsdToNanos(model.pricing.prompt)!,
        completionNanos: parseUsdToNanos(model.pricing.completion)!,
        ...(model.pricing.input_cache_read !== undefined && {
          cacheReadNanos: parseUsdToNanos(model.pricing.input_cache_read)!,
        }),
        ...(model.pricing.input_cache_write !== undefined && {
          cacheWriteNanos: parseUsdToNanos(model.pricing.input_cache_write)!,
        }),
        ...(model.pricing.input_cache_write_1h !== undefined && {
          cacheWriteHourNanos: parseUsdToNanos(model.pricing.input_cache_write_1h)!,
        }),
        contextLength: model.context_length,
        maxCompletionTokens: model.max_completion_tokens,
        inputModalities: model.input_modalities,
        outputModalities: outputs,
        supportedParameters: model.supported_parameters,
      };
    });
    if (provider.kind === 'simulated') {
      simulated.push({ id: provider.id, models });
      return;
    }
    const keyVariable = provider.api_key_env!;
    if (!(keyVariable in environment)) {
      throw new ProvidersFileError(
        `${shown}: provider '${provider.id}' reads its upstream key from the environment variable ${keyVariable}, which is not set. ` +
          'Set it (to an empty value for a local server that needs no key).',
      );
    }
    upstream.push({
      id: provider.id,
      kind: provider.kind,
      baseUrl: provider.base_url!,
      apiKey: environment[keyVariable] ?? '',
      apiKeyEnv: keyVariable,
      timeouts: {
        connectMs: provider.timeouts?.connect_ms ?? defaultTimeouts.connectMs,
        firstByteMs: provider.timeouts?.first_byte_ms ?? defaultTimeouts.firstByteMs,
        idleMs: provider.timeouts?.idle_ms ?? defaultTimeouts.idleMs,
        firstEventMs: provider.timeouts?.first_event_ms ?? defaultTimeouts.firstEventMs,
        totalMs: provider.timeouts?.total_ms ?? defaultTimeouts.totalMs,
      },
      retry: {
        maxAttempts: provider.retry?.max_attempts ?? defaultRetry.maxAttempts,
        baseDelayMs: provider.retry?.base_delay_ms ?? defaultRetry.baseDelayMs,
        maxDelayMs: provider.retry?.max_delay_ms ?? defaultRetry.maxDelayMs,
      },
      breaker: {
        failureThreshold: provider.breaker?.failure_threshold ?? defaultBreaker.failureThreshold,
        cooldownMs: provider.breaker?.cooldown_ms ?? defaultBreaker.cooldownMs,
      },
      headers: provider.headers ?? {},
      // Gemini's API fetches no arbitrary URL: images always travel inline there.
      inlineImageUrls: provider.kind === 'gemini' ? true : (provider.inline_image_urls ?? false),
      responsesApi: provider.kind === 'openai-compatible' && provider.responses_api === true,
      models,
    });
  });
  const includeSimulatedModels = parsed.data.include_simulated_models ?? true;
  const modelIds = new Set(outputsById.keys());
  if (includeSimulatedModels) for (const model of simulatedModels) modelIds.add(model.id);
  const aliases = parsed.data.aliases ?? [];
  const presets = parsed.data.presets ?? [];
  const problem = checkRoutingNames(modelIds, aliases, presets);
  if (problem) throw new ProvidersFileError(`${shown}: ${problem}`);
  return {
    includeSimulatedModels,
    upstream,
    simulated,
    order: parsed.data.providers.map((provider) => provider.id),
    aliases,
    presets,
  };
}

/**
 * Whether the aliases and presets name what exists: an alias's members are catalog models and its
 * id is not one; a preset's model and fallbacks are catalog models or aliases. The problem, with
 * its JSON path, or null. The admin API checks a preset it is given the same way.
 */
export function checkRoutingNames(
  modelIds: ReadonlySet<string>,
  aliases: readonly AliasDefinition[],
  presets: readonly PresetDefinition[],
): string | null {
  const aliasIds = new Set<string>();
  for (const [index, alias] of aliases.entries()) {
    if (modelIds.has(alias.id) || aliasIds.has(alias.id))
      return `aliases[${index}].id: '${alias.id}' is ${aliasIds.has(alias.id) ? 'used twice' : 'a catalog model id'}; an alias needs a name of its own.`;
    aliasIds.add(alias.id);
    const missing = alias.models.findIndex((model) => !modelIds.has(model));
    if (missing !== -1)
      return `aliases[${index}].models[${missing}]: '${alias.models[missing]}' is not a catalog model.`;
  }
  const presetIds = new Set<string>();
  for (const [index, preset] of presets.entries()) {
    if (presetIds.has(preset.id)) return `presets[${index}].id: '${preset.id}' is used twice.`;
    presetIds.add(preset.id);
    const named = [preset.model, ...(preset.models ?? [])];
    const missing = named.findIndex((model) => !modelIds.has(model) && !aliasIds.has(model));
    if (missing !== -1)
      return `presets[${index}].${missing === 0 ? 'model' : `models[${missing - 1}]`}: '${named[missing]}' is neither a catalog model nor an alias.`;
  }
  return null;
}

/** `["providers", 0, "models", 2, "pricing"]` → `providers[0].models[2].pricing`. */
function jsonPath(segments: PropertyKey[]): string {
  if (segments.length === 0) return '(the whole file)';
  return segments
    .map((segment, index) =>
      typeof segment === 'number' ? `[${segment}]` : `${index === 0 ? '' : '.'}${String(segment)}`,
    )
    .join('');
}
