/**
 * The gateway's configuration: read from the environment once, validated, typed after. Nothing
 * else in gateway/ reads `process.env`. A bad value stops start-up with the variable's name.
 */
import path from 'node:path';
import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);

const environmentSchema = z.object({
  GATEWAY_HOST: z.string().min(1).default('127.0.0.1'),
  GATEWAY_PORT: port.default(8787),
  GATEWAY_DB: z.string().min(1).default('./data/gateway.db'),
  GATEWAY_SETTLE_INTERVAL_MS: z.coerce.number().int().min(100).default(30_000),
  /** Secret mixed into key digests; when unset, a random one is kept beside the database. */
  GATEWAY_KEY_PEPPER: z.string().min(16).optional(),
  /** Tokens per second the simulated provider streams at; 0 streams as fast as it can. */
  GATEWAY_SIM_TOKENS_PER_SECOND: z.coerce.number().min(0).max(100_000).default(60),
  GATEWAY_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info'),
  /** Largest request body accepted, in bytes (images arrive inline as base64). */
  GATEWAY_MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(20 * 1024 * 1024),
  /** Inference requests one key may have running at once; more get 429. */
  GATEWAY_MAX_CONCURRENT_PER_KEY: z.coerce.number().int().min(1).max(100_000).default(64),
});

export type GatewayConfig = {
  host: string;
  port: number;
  databasePath: string;
  settleIntervalMs: number;
  keyPepper: string | undefined;
  simulatedTokensPerSecond: number;
  logLevel: z.infer<typeof environmentSchema>['GATEWAY_LOG_LEVEL'];
  maxBodyBytes: number;
  maxConcurrentPerKey: number;
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
  return {
    host: value.GATEWAY_HOST,
    port: value.GATEWAY_PORT,
    databasePath: path.resolve(value.GATEWAY_DB),
    settleIntervalMs: value.GATEWAY_SETTLE_INTERVAL_MS,
    keyPepper: value.GATEWAY_KEY_PEPPER,
    simulatedTokensPerSecond: value.GATEWAY_SIM_TOKENS_PER_SECOND,
    logLevel: value.GATEWAY_LOG_LEVEL,
    maxBodyBytes: value.GATEWAY_MAX_BODY_BYTES,
    maxConcurrentPerKey: value.GATEWAY_MAX_CONCURRENT_PER_KEY,
  };
}
