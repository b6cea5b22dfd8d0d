/**
 * The workbench's configuration, read from the environment once and validated with zod. This is
 * the only module of `server/` that reads `process.env`; everything else gets typed values.
 */
import path from 'node:path';
import { z } from 'zod';

/** How long the BFF waits on the gateway before it gives up, per stage of a call. */
export interface GatewayTimeouts {
  /** From starting a call until the TCP connection to the gateway is up. */
  connectMs: number;
  /** From sending the request until the gateway's response headers arrive. */
  firstByteMs: number;
  /** Longest silence while reading a response body (a stream included). */
  idleMs: number;
  /**
   * Longest time to read a whole non-streamed answer, from its headers to its last byte. The idle
   * timeout alone never ends a body drip-fed one byte at a time; streams have no such deadline.
   */
  bodyDeadlineMs: number;
  /**
   * Longest time for a whole call that runs no model (catalog, balance, keys), from its start to
   * its last byte: the stages alone add up to minutes. Streams and POSTs (which may run a model)
   * keep only their stages.
   */
  callDeadlineMs: number;
}

export interface WorkbenchConfig {
  host: string;
  port: number;
  /** Extra `Host` names accepted besides the loopback ones (lower case, port optional). */
  allowedHosts: string[];
  keysFile: string | null;
  /**
   * Embedded mode: the folder of the embedded gateway's database (GATEWAY_DB, `./data/gateway.db`
   * by default), where the workbench keeps its own keys store when WORKBENCH_KEYS_FILE is unset.
   */
  dataDirectory: string;
  /** The external gateway's root without a trailing `/v1`; null means the embedded gateway. */
  gatewayBaseUrl: string | null;
  gatewayApiKey: string | null;
  timeouts: GatewayTimeouts;
  /** How long a fetched model catalog is reused. */
  catalogTtlMs: number;
  /** WORKBENCH_ACCESS_TOKEN: the sign-in secret; undefined means no sign-in (loopback only). */
  accessToken?: string;
}

/** Thrown for a bad variable; the message names it so a person can fix it. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

/**
 * Removes trailing slashes and a trailing `/v1`: people paste the client-library base (which
 * includes `/v1`, spec 5.4) as often as the service root.
 */
export function normalizeGatewayBaseUrl(value: string): string {
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error('must be an http:// or https:// URL');
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new Error('must not carry a query, a fragment or credentials');
  }
  const path = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${url.origin}${path}`;
}

const integer = (minimum: number, maximum: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .refine((value) => value >= minimum && value <= maximum, {
      message: `must be between ${minimum} and ${maximum}`,
    });

/** Variables whose value may be shown in an error message (never the key). */
const secretVariables = new Set(['GATEWAY_API_KEY', 'WORKBENCH_ACCESS_TOKEN']);

const variableSchemas = {
  WORKBENCH_HOST: z.string().min(1),
  WORKBENCH_PORT: integer(0, 65_535),
  WORKBENCH_ALLOWED_HOSTS: z.string(),
  WORKBENCH_KEYS_FILE: z.string().min(1),
  // The embedded gateway's database (its own variable, read by the gateway too): the workbench
  // keeps the keys it creates beside it.
  GATEWAY_DB: z.string().min(1),
  GATEWAY_BASE_URL: z.string().transform((value, context) => {
    try {
      return normalizeGatewayBaseUrl(value);
    } catch (error) {
      context.addIssue({
        code: 'custom',
        message: error instanceof TypeError ? 'is not a URL' : (error as Error).message,
      });
      return z.NEVER;
    }
  }),
  GATEWAY_API_KEY: z
    .string()
    .regex(/^\S+$/, 'must not contain spaces')
    .refine((value) => value.startsWith('sk-'), { message: 'must begin with sk-' }),
  WORKBENCH_GATEWAY_CONNECT_TIMEOUT_MS: integer(100, 120_000),
  WORKBENCH_GATEWAY_FIRST_BYTE_TIMEOUT_MS: integer(100, 290_000),
  WORKBENCH_GATEWAY_IDLE_TIMEOUT_MS: integer(100, 290_000),
  WORKBENCH_GATEWAY_BODY_DEADLINE_MS: integer(100, 290_000),
  WORKBENCH_GATEWAY_CALL_DEADLINE_MS: integer(100, 290_000),
  WORKBENCH_CATALOG_TTL_MS: integer(0, 3_600_000),
  // As long as GATEWAY_ADMIN_TOKEN: a sign-in secret that cannot be guessed, even without throttling.
  WORKBENCH_ACCESS_TOKEN: z
    .string()
    .min(32, 'must be at least 32 characters (e.g. openssl rand -base64 32)')
    .max(1024, 'must be at most 1024 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
} as const;

type VariableName = keyof typeof variableSchemas;
type VariableValue<Name extends VariableName> = z.output<(typeof variableSchemas)[Name]>;

function read<Name extends VariableName>(
  env: Record<string, string | undefined>,
  name: Name,
): VariableValue<Name> | undefined {
  const raw = env[name];
  // An empty variable is treated as unset: `FOO= npm start` is a common way to clear one.
  if (raw === undefined || raw.trim() === '') return undefined;
  const result = variableSchemas[name].safeParse(raw.trim());
  if (!result.success) {
    const reason = result.error.issues[0]?.message ?? 'is not valid';
    const shown = secretVariables.has(name) ? '' : ` (got ${JSON.stringify(raw)})`;
    throw new ConfigError(name, `${reason}${shown}`);
  }
  return result.data as VariableValue<Name>;
}

/** Reads and validates every workbench variable; throws a ConfigError naming a bad one. */
export function loadWorkbenchConfig(
  env: Record<string, string | undefined> = process.env,
): WorkbenchConfig {
  const allowedHosts = (read(env, 'WORKBENCH_ALLOWED_HOSTS') ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  for (const name of allowedHosts) {
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(name)) {
      throw new ConfigError('WORKBENCH_ALLOWED_HOSTS', `"${name}" is not a host name`);
    }
  }
  return {
    host: read(env, 'WORKBENCH_HOST') ?? '127.0.0.1',
    port: read(env, 'WORKBENCH_PORT') ?? 5173,
    allowedHosts,
    keysFile: read(env, 'WORKBENCH_KEYS_FILE') ?? null,
    dataDirectory: path.dirname(path.resolve(read(env, 'GATEWAY_DB') ?? './data/gateway.db')),
    gatewayBaseUrl: read(env, 'GATEWAY_BASE_URL') ?? null,
    gatewayApiKey: read(env, 'GATEWAY_API_KEY') ?? null,
    timeouts: {
      connectMs: read(env, 'WORKBENCH_GATEWAY_CONNECT_TIMEOUT_MS') ?? 5_000,
      // A non-streamed completion sends its headers only when the whole answer is ready.
      firstByteMs: read(env, 'WORKBENCH_GATEWAY_FIRST_BYTE_TIMEOUT_MS') ?? 120_000,
      idleMs: read(env, 'WORKBENCH_GATEWAY_IDLE_TIMEOUT_MS') ?? 120_000,
      // Counted from the headers: a whole answer is ready by then, so it only has to travel.
      bodyDeadlineMs: read(env, 'WORKBENCH_GATEWAY_BODY_DEADLINE_MS') ?? 15_000,
      // A catalog or a balance is ready at once: a gateway that takes this long is not well.
      callDeadlineMs: read(env, 'WORKBENCH_GATEWAY_CALL_DEADLINE_MS') ?? 30_000,
    },
    catalogTtlMs: read(env, 'WORKBENCH_CATALOG_TTL_MS') ?? 30_000,
    accessToken: read(env, 'WORKBENCH_ACCESS_TOKEN'),
  };
}
