/**
 * The gateway's configuration: read from the environment once, validated, typed after. Nothing
 * else in gateway/ reads `process.env`. A bad value stops start-up with the variable's name.
 */
import path from 'node:path';
import { z } from 'zod';
import {
  loadProvidersFile,
  ProvidersFileError,
  type ProvidersFile,
} from './providers/providers-file';

/** `GATEWAY_LEASE_MS` when not set. */
export const DEFAULT_LEASE_MS = 30_000;

const port = z.coerce.number().int().min(0).max(65535);

/**
 * Every variable the gateway reads, with what it means: `npm run docs` writes the table of
 * docs/configuration.md from these descriptions (scripts/config-reference.ts).
 */
export const gatewayEnvironmentSchema = z.object({
  GATEWAY_HOST: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .describe('The address the gateway listens on (the embedded one too).'),
  GATEWAY_PORT: port
    .default(8787)
    .describe('The port the gateway listens on; `0` takes a free one.'),
  GATEWAY_DB: z
    .string()
    .min(1)
    .default('./data/gateway.db')
    .describe(
      "The gateway's SQLite file (WAL mode), used when `GATEWAY_DATABASE_URL` is unset; `key-pepper` and the embedded demo keys are kept beside it.",
    ),
  GATEWAY_SQLITE_SYNC: z
    .enum(['full', 'normal'])
    .default('full')
    .describe(
      'SQLite only. `full`: each batch of generation records is synced to disk before its answers end (a power cut loses no answered charge). `normal`: written to the log only and synced within a second (a killed process loses nothing, a power cut may lose the last second of records), for less latency.',
    ),
  GATEWAY_SETTLE_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(30_000)
    .describe("How often pending charges are settled into the keys' consumption, in milliseconds."),
  GATEWAY_CLOCK_OFFSET_MS: z.coerce
    .number()
    .int()
    .min(-31_622_400_000)
    .max(31_622_400_000)
    .default(0)
    .describe(
      "For tests and drills only: milliseconds added to the gateway's clock where it decides by the calendar (budget periods, key expiry), so a drill can cross midnight or the first of the month without waiting. Every instance of one store must use the same value.",
    ),
  GATEWAY_KEY_PEPPER: z
    .string()
    .min(16)
    .optional()
    .describe(
      'The secret mixed into key digests. Unset: a random one, kept in `key-pepper` beside the SQLite database. Required with `GATEWAY_DATABASE_URL`, the same on every instance.',
    ),
  GATEWAY_SIM_TOKENS_PER_SECOND: z.coerce
    .number()
    .min(0)
    .max(100_000)
    .default(60)
    .describe(
      'How fast the simulated provider streams, in tokens per second; `0` is as fast as it can.',
    ),
  GATEWAY_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe("The gateway's log level (pino)."),
  GATEWAY_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(20 * 1024 * 1024)
    .describe(
      "The largest request body, in bytes (images arrive inline as base64); a larger one is a 413. Also the rate at which an account's refused bodies are read and thrown away, per second.",
    ),
  GATEWAY_CLIENT_SEND_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(3_600_000)
    .default(60_000)
    .describe(
      'How long a client may leave a streamed answer unread before it is dropped, in milliseconds; its request then ends as if the client had left.',
    ),
  GATEWAY_MAX_CONCURRENT_PER_KEY: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(64)
    .describe(
      'Requests (inference and token counting) one key may have in the gateway at once; an account, all its keys together, four times that. More get 429.',
    ),
  GATEWAY_MAX_COUNT_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024)
    .describe(
      'The largest body of the token-counting routes, in bytes (they carry no image the count depends on).',
    ),
  GATEWAY_PROVIDERS: z
    .string()
    .min(1)
    .optional()
    .describe(
      'The providers file: real upstream providers and the models they serve (docs/providers.md). Unset: the simulated models only.',
    ),
  GATEWAY_ALLOW_PRIVATE_IMAGE_URLS: z
    .enum(['0', '1', 'true', 'false'])
    .optional()
    .describe(
      'Lets the gateway fetch image URLs on loopback, private and link-local addresses, for upstreams that need images inline. Off by default: a tenant must not read our network.',
    ),
  GATEWAY_ADMIN_TOKEN: z
    .string()
    .min(32, 'must be at least 32 characters (a long random secret)')
    .optional()
    .describe(
      "The operator's token for `/admin/v1/keys…`, sent as `Authorization: Bearer …` and compared in constant time. Unset: those routes do not exist (404).",
    ),
  GATEWAY_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// (or postgresql://) URL')
    .optional()
    .describe(
      'The PostgreSQL store several instances share (docs/scale-out.md); needs `GATEWAY_KEY_PEPPER`. Unset: SQLite at `GATEWAY_DB`.',
    ),
  GATEWAY_REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// (or rediss://) URL')
    .optional()
    .describe('Admission reservations and rate limits shared across instances, in Redis.'),
  GATEWAY_REDIS_PREFIX: z
    .string()
    .regex(
      /^[A-Za-z0-9:_.-]{1,64}$/,
      'must be 1-64 letters, digits, colons, dots, dashes or underscores',
    )
    .default('gateway:')
    .describe(
      'The prefix of every Redis key the gateway writes, so deployments (and test runs) can share a server.',
    ),
  GATEWAY_LEASE_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(600_000)
    .default(DEFAULT_LEASE_MS)
    .describe(
      "How long a dead instance's reservations and in-flight requests hold before the other instances free and charge them, in milliseconds.",
    ),
  GATEWAY_DEFAULT_RPM: z.coerce
    .number()
    .int()
    .min(0)
    .max(10_000_000)
    .default(0)
    .describe(
      'Requests per minute per key, unless the key has its own (`keys set --rpm`); `0` is no limit.',
    ),
  GATEWAY_DEFAULT_TPM: z.coerce
    .number()
    .int()
    .min(0)
    .max(10_000_000_000)
    .default(0)
    .describe(
      'Tokens per minute per key, unless the key has its own (`keys set --tpm`); `0` is no limit.',
    ),
  GATEWAY_RESPONSES_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(10 * 365 * 86_400)
    .default(30 * 86_400)
    .describe(
      'How long a stored response (the Responses form with `store`) is kept, in seconds; 30 days, as OpenAI (docs/responses.md).',
    ),
  GATEWAY_STATS_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3_660)
    .default(8)
    .describe(
      "How long each provider's per-minute availability and latency figures are kept, in days; the stats route reads at most 7 (docs/operations.md).",
    ),
  GATEWAY_WEBHOOK_ALLOW_PRIVATE: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .describe(
      '`true` lets webhook endpoints use `http` and loopback or private addresses: for tests and local use only (docs/webhooks.md). Unset: `https` to public addresses only.',
    ),
  GATEWAY_WEBHOOK_RETRY_BASE_MS: z.coerce
    .number()
    .int()
    .min(10)
    .max(3_600_000)
    .default(5_000)
    .describe(
      "A failed webhook delivery's first retry comes after this many milliseconds; each later one doubles (±20%), up to an hour, for 24 hours.",
    ),
  GATEWAY_WEBHOOK_FAILURE_LIMIT: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000)
    .default(20)
    .describe(
      'Failed webhook deliveries in a row after which the gateway stops sending to that endpoint until it is resumed.',
    ),
  OTEL_SDK_DISABLED: z
    .enum(['true', 'false'])
    .optional()
    .describe('`true` turns tracing off even with an endpoint set (OpenTelemetry standard).'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .optional()
    .describe(
      'OTLP/HTTP base URL of the collector, e.g. `http://otel-collector:4318`; traces go to `<it>/v1/traces`. Unset (and no traces endpoint): no tracing (docs/operations.md).',
    ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .optional()
    .describe('Full OTLP/HTTP URL for traces; wins over `OTEL_EXPORTER_OTLP_ENDPOINT`.'),
  OTEL_EXPORTER_OTLP_PROTOCOL: z
    .enum(['http/json'])
    .default('http/json')
    .describe(
      'The OTLP transport: `http/json` (the one this gateway speaks; a collector accepts it on its OTLP/HTTP port).',
    ),
  OTEL_EXPORTER_OTLP_HEADERS: z
    .string()
    .max(8_192)
    .optional()
    .describe(
      'Headers sent with each export, `name=value` pairs separated by commas (W3C baggage format), e.g. an API key of the tracing backend.',
    ),
  OTEL_SERVICE_NAME: z
    .string()
    .min(1)
    .max(200)
    .default('model-gateway')
    .describe("The traces' `service.name`."),
  OTEL_TRACES_SAMPLER: z
    .enum([
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ])
    .default('parentbased_always_on')
    .describe(
      "Which requests are traced; `parentbased_…` follows the caller's `traceparent` sampled flag.",
    ),
  OTEL_TRACES_SAMPLER_ARG: z.coerce
    .number()
    .min(0)
    .max(1)
    .default(1)
    .describe('The ratio of the `…traceidratio` samplers, 0 to 1.'),
  OTEL_BSP_MAX_QUEUE_SIZE: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(2_048)
    .describe(
      'Finished spans held for export; past it spans are dropped (`gateway_trace_spans_dropped_total`), never the request slowed.',
    ),
  OTEL_BSP_SCHEDULE_DELAY: z.coerce
    .number()
    .int()
    .min(1)
    .max(3_600_000)
    .default(5_000)
    .describe('Milliseconds between two exports.'),
  OTEL_BSP_EXPORT_TIMEOUT: z.coerce
    .number()
    .int()
    .min(1)
    .max(3_600_000)
    .default(30_000)
    .describe(
      'Milliseconds an export may take before it is abandoned (its spans counted as dropped).',
    ),
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: z
    .enum(['true', 'false'])
    .default('false')
    .describe(
      '`true` puts the messages of each request on its span (`gen_ai.input.messages`); off by default, as the content may be private. A key is never exported.',
    ),
});

/** Tracing over OTLP; null when off (docs/operations.md). */
export type TracingConfig = {
  /** The full URL spans are posted to (OTLP/HTTP JSON). */
  url: string;
  headers: Record<string, string>;
  serviceName: string;
  sampler: z.infer<typeof gatewayEnvironmentSchema>['OTEL_TRACES_SAMPLER'];
  samplerRatio: number;
  maxQueueSize: number;
  scheduledDelayMs: number;
  exportTimeoutMs: number;
  captureContent: boolean;
};

export type GatewayConfig = {
  host: string;
  port: number;
  databasePath: string;
  /** SQLite: whether records are synced to disk before their answers end (`full`) or not. */
  sqliteSync: 'full' | 'normal';
  settleIntervalMs: number;
  /** Added to the clock for budget periods and key expiry (tests and drills). */
  clockOffsetMs: number;
  /** How long a stored response is kept, in seconds. */
  responsesTtlSeconds: number;
  keyPepper: string | undefined;
  simulatedTokensPerSecond: number;
  logLevel: z.infer<typeof gatewayEnvironmentSchema>['GATEWAY_LOG_LEVEL'];
  maxBodyBytes: number;
  maxConcurrentPerKey: number;
  maxCountBodyBytes: number;
  /** How long a client may leave a streamed answer unread before it is dropped. */
  clientSendTimeoutMs: number;
  /** The providers file, validated; null when GATEWAY_PROVIDERS is unset (simulated models only). */
  providers: ProvidersFile | null;
  allowPrivateImageUrls: boolean;
  /** The operator's token for `/admin/v1/…`; undefined when unset (those routes answer 404). */
  adminToken: string | undefined;
  /** PostgreSQL URL (shared store), or undefined for SQLite at `databasePath`. */
  databaseUrl: string | undefined;
  /** Redis URL (shared reservations and rate limits), or undefined. */
  redisUrl: string | undefined;
  redisPrefix: string;
  leaseMs: number;
  /** 0: no limit. */
  defaultRpm: number;
  defaultTpm: number;
  /** How long per-minute provider stats are kept, in days. */
  statsRetentionDays: number;
  tracing: TracingConfig | null;
  webhooks: {
    /** http and private or loopback targets (tests, local use). */
    allowPrivate: boolean;
    retryBaseMs: number;
    failureLimit: number;
    /** A 2xx within this counts as delivered. */
    deliveryTimeoutMs: number;
  };
};

export class ConfigurationError extends Error {}

export function loadGatewayConfig(environment: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const parsed = gatewayEnvironmentSchema.safeParse(
    // Empty strings mean "unset", as shells and .env files produce them.
    Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== '')),
  );
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigurationError(`${String(issue.path[0])}: ${issue.message}`);
  }
  const value = parsed.data;
  let providers: ProvidersFile | null = null;
  if (value.GATEWAY_PROVIDERS) {
    try {
      providers = loadProvidersFile(value.GATEWAY_PROVIDERS, environment);
    } catch (error) {
      if (error instanceof ProvidersFileError)
        throw new ConfigurationError(`GATEWAY_PROVIDERS: ${error.message}`);
      throw error;
    }
  }
  if (value.GATEWAY_DATABASE_URL && !value.GATEWAY_KEY_PEPPER) {
    // Every instance must digest keys alike, and the pepper must not live in the database it
    // protects, so the file beside a SQLite database has no PostgreSQL counterpart.
    throw new ConfigurationError(
      'GATEWAY_KEY_PEPPER: required with GATEWAY_DATABASE_URL (16+ characters, the same secret on every instance).',
    );
  }
  return {
    host: value.GATEWAY_HOST,
    port: value.GATEWAY_PORT,
    databasePath: path.resolve(value.GATEWAY_DB),
    sqliteSync: value.GATEWAY_SQLITE_SYNC,
    settleIntervalMs: value.GATEWAY_SETTLE_INTERVAL_MS,
    clockOffsetMs: value.GATEWAY_CLOCK_OFFSET_MS,
    responsesTtlSeconds: value.GATEWAY_RESPONSES_TTL_SECONDS,
    keyPepper: value.GATEWAY_KEY_PEPPER,
    simulatedTokensPerSecond: value.GATEWAY_SIM_TOKENS_PER_SECOND,
    logLevel: value.GATEWAY_LOG_LEVEL,
    maxBodyBytes: value.GATEWAY_MAX_BODY_BYTES,
    maxConcurrentPerKey: value.GATEWAY_MAX_CONCURRENT_PER_KEY,
    maxCountBodyBytes: value.GATEWAY_MAX_COUNT_BODY_BYTES,
    clientSendTimeoutMs: value.GATEWAY_CLIENT_SEND_TIMEOUT_MS,
    providers,
    allowPrivateImageUrls: ['1', 'true'].includes(value.GATEWAY_ALLOW_PRIVATE_IMAGE_URLS ?? ''),
    adminToken: value.GATEWAY_ADMIN_TOKEN,
    databaseUrl: value.GATEWAY_DATABASE_URL,
    redisUrl: value.GATEWAY_REDIS_URL,
    redisPrefix: value.GATEWAY_REDIS_PREFIX,
    leaseMs: value.GATEWAY_LEASE_MS,
    defaultRpm: value.GATEWAY_DEFAULT_RPM,
    defaultTpm: value.GATEWAY_DEFAULT_TPM,
    statsRetentionDays: value.GATEWAY_STATS_RETENTION_DAYS,
    webhooks: {
      allowPrivate: ['1', 'true'].includes(value.GATEWAY_WEBHOOK_ALLOW_PRIVATE ?? ''),
      retryBaseMs: value.GATEWAY_WEBHOOK_RETRY_BASE_MS,
      failureLimit: value.GATEWAY_WEBHOOK_FAILURE_LIMIT,
      deliveryTimeoutMs: 10_000,
    },
    tracing: tracingConfigOf(value),
  };
}

function tracingConfigOf(value: z.infer<typeof gatewayEnvironmentSchema>): TracingConfig | null {
  const base = value.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, '');
  const url = value.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base && `${base}/v1/traces`);
  if (!url || value.OTEL_SDK_DISABLED === 'true') return null;
  return {
    url,
    headers: parseOtlpHeaders(value.OTEL_EXPORTER_OTLP_HEADERS ?? ''),
    serviceName: value.OTEL_SERVICE_NAME,
    sampler: value.OTEL_TRACES_SAMPLER,
    samplerRatio: value.OTEL_TRACES_SAMPLER_ARG,
    maxQueueSize: value.OTEL_BSP_MAX_QUEUE_SIZE,
    scheduledDelayMs: value.OTEL_BSP_SCHEDULE_DELAY,
    exportTimeoutMs: value.OTEL_BSP_EXPORT_TIMEOUT,
    captureContent: value.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT === 'true',
  };
}

/** `name=value,name2=value2` (values URL-encoded, as the OpenTelemetry specification has them). */
function parseOtlpHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of text.split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    if (at <= 0)
      throw new ConfigurationError(
        'OTEL_EXPORTER_OTLP_HEADERS: each header must be name=value, separated by commas.',
      );
    try {
      headers[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      throw new ConfigurationError(
        'OTEL_EXPORTER_OTLP_HEADERS: a value is not valid percent-encoding (%XX).',
      );
    }
  }
  return headers;
}
