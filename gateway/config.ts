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

const port = z.coerce.number().int().min(0).max(65535);

const environmentSchema = z.object({
  GATEWAY_HOST: z.string().min(1).default('127.0.0.1'),
  GATEWAY_PORT: port.default(8787),
  GATEWAY_DB: z.string().min(1).default('./data/gateway.db'),
  /**
   * SQLite: `full` syncs each batch of generation records to disk before its answers end (a
   * power cut loses no answered charge); `normal` leaves it in the OS's cache (a killed process
   * loses nothing, a lost machine may lose the last records), for a little less latency.
   */
  GATEWAY_SQLITE_SYNC: z.enum(['full', 'normal']).default('full'),
  GATEWAY_SETTLE_INTERVAL_MS: z.coerce.number().int().min(100).default(30_000),
  /** Secret mixed into key digests; when unset, a random one is kept beside the database. */
  GATEWAY_KEY_PEPPER: z.string().min(16).optional(),
  /** Tokens per second the simulated provider streams at; 0 streams as fast as it can. */
  GATEWAY_SIM_TOKENS_PER_SECOND: z.coerce.number().min(0).max(100_000).default(60),
  GATEWAY_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info'),
  /** Largest request body accepted, in bytes (images arrive inline as base64). */
  GATEWAY_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(20 * 1024 * 1024),
  /** How long a client may leave a streamed answer unread before it is dropped. */
  GATEWAY_CLIENT_SEND_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /** Inference requests one key may have running at once; more get 429. */
  GATEWAY_MAX_CONCURRENT_PER_KEY: z.coerce.number().int().min(1).max(100_000).default(64),
  /** Largest body of the token-counting routes, which carry no image the count depends on. */
  GATEWAY_MAX_COUNT_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  /** The providers file: upstream providers and the models they serve. */
  GATEWAY_PROVIDERS: z.string().min(1).optional(),
  /**
   * Lets the gateway fetch image URLs on private, loopback and link-local addresses (for
   * upstreams that need images inline). Off by default: a tenant must not read our network.
   */
  GATEWAY_ALLOW_PRIVATE_IMAGE_URLS: z.enum(['0', '1', 'true', 'false']).optional(),
  /** The operator's token for `/admin/v1/…`; when unset, those routes do not exist (404). */
  GATEWAY_ADMIN_TOKEN: z
    .string()
    .min(32, 'must be at least 32 characters (a long random secret)')
    .optional(),
  /** `postgres://…`: the PostgreSQL store several instances share; unset: SQLite at GATEWAY_DB. */
  GATEWAY_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// (or postgresql://) URL')
    .optional(),
  /** `redis://…`: shared admission reservations and rate limits across instances. */
  GATEWAY_REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// (or rediss://) URL')
    .optional(),
  /** Prefix of every Redis key the gateway writes, so deployments (and test runs) can share a server. */
  GATEWAY_REDIS_PREFIX: z
    .string()
    .regex(
      /^[A-Za-z0-9:_.-]{1,64}$/,
      'must be 1-64 letters, digits, colons, dots, dashes or underscores',
    )
    .default('gateway:'),
  /** How long a dead instance's reservations and in-flight records hold before others free them. */
  GATEWAY_LEASE_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000),
  /** Default requests per minute per key (0: no limit); `keys set --rpm` overrides per key. */
  GATEWAY_DEFAULT_RPM: z.coerce.number().int().min(0).max(10_000_000).default(0),
  /** Default tokens per minute per key (0: no limit); `keys set --tpm` overrides per key. */
  GATEWAY_DEFAULT_TPM: z.coerce.number().int().min(0).max(10_000_000_000).default(0),
  /** How long a stored response (Responses form, `store`) is kept, in seconds; 30 days as OpenAI. */
  GATEWAY_RESPONSES_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(10 * 365 * 86_400)
    .default(30 * 86_400),
});

export type GatewayConfig = {
  host: string;
  port: number;
  databasePath: string;
  /** SQLite: whether records are synced to disk before their answers end (`full`) or not. */
  sqliteSync: 'full' | 'normal';
  settleIntervalMs: number;
  /** How long a stored response is kept, in seconds. */
  responsesTtlSeconds: number;
  keyPepper: string | undefined;
  simulatedTokensPerSecond: number;
  logLevel: z.infer<typeof environmentSchema>['GATEWAY_LOG_LEVEL'];
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
};

export class ConfigurationError extends Error {}

export function loadGatewayConfig(environment: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const parsed = environmentSchema.safeParse(
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
  };
}
