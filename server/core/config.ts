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
 * includes `/v1`) as often as the service root.
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

// The range is also given as metadata, for the generated configuration reference.
const integer = (minimum: number, maximum: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .refine((value) => value >= minimum && value <= maximum, {
      message: `must be between ${minimum} and ${maximum}`,
    })
    .meta({ type: 'integer', minimum, maximum });

/** Variables whose value may be shown in an error message (never the key). */
const secretVariables = new Set(['GATEWAY_API_KEY', 'WORKBENCH_ACCESS_TOKEN']);

/**
 * Every variable the workbench reads, with what it means: `npm run docs` writes the table of
 * docs/configuration.md from these descriptions and from `workbenchDefaults`
 * (scripts/config-reference.ts). `values` says what is valid where the schema alone cannot.
 */
export const workbenchVariableSchemas = {
  WORKBENCH_HOST: z.string().min(1).describe('The address the workbench listens on.'),
  WORKBENCH_PORT: integer(0, 65_535).describe('The port the workbench listens on.'),
  WORKBENCH_ALLOWED_HOSTS: z.string().meta({
    description:
      'Extra `Host` names the workbench accepts besides the loopback ones, behind a proxy (see docs/workbench.md, "Sign-in").',
    values: 'comma-separated host names, each with an optional port',
  }),
  WORKBENCH_KEYS_FILE: z
    .string()
    .min(1)
    .describe(
      'A JSON file `{ "<profile name>": "sk-…" }`: the key profiles the workbench holds, and where it keeps the keys it creates.',
    ),
  // Also read by the gateway itself.
  GATEWAY_DB: z
    .string()
    .min(1)
    .describe(
      "Embedded mode: the embedded gateway's database; without `WORKBENCH_KEYS_FILE` the workbench keeps the keys it creates in `workbench-keys.json` beside it.",
    ),
  GATEWAY_BASE_URL: z
    .string()
    .transform((value, context) => {
      try {
        return normalizeGatewayBaseUrl(value);
      } catch (error) {
        context.addIssue({
          code: 'custom',
          message: error instanceof TypeError ? 'is not a URL' : (error as Error).message,
        });
        return z.NEVER;
      }
    })
    .meta({
      description:
        "A real gateway's root (a trailing `/v1` is removed). Unset: the workbench starts an embedded gateway.",
      values: 'an http:// or https:// URL without query, fragment or credentials',
    }),
  GATEWAY_API_KEY: z
    .string()
    .regex(/^\S+$/, 'must not contain spaces')
    .refine((value) => value.startsWith('sk-'), { message: 'must begin with sk-' })
    .describe('A gateway key the workbench holds as the profile `default`.'),
  WORKBENCH_GATEWAY_CONNECT_TIMEOUT_MS: integer(100, 120_000).describe(
    'How long the workbench waits to connect to the gateway, in milliseconds.',
  ),
  WORKBENCH_GATEWAY_FIRST_BYTE_TIMEOUT_MS: integer(100, 290_000).describe(
    "How long the workbench waits for the gateway's response headers, in milliseconds (a non-streamed answer sends them only when it is whole).",
  ),
  WORKBENCH_GATEWAY_IDLE_TIMEOUT_MS: integer(100, 290_000).describe(
    'The longest silence while reading a gateway answer or stream, in milliseconds.',
  ),
  WORKBENCH_GATEWAY_BODY_DEADLINE_MS: integer(100, 290_000).describe(
    'The longest time to read a whole non-streamed gateway answer after its headers, in milliseconds (answers over 16 MiB are refused too).',
  ),
  WORKBENCH_GATEWAY_CALL_DEADLINE_MS: integer(100, 290_000).describe(
    'The longest time for a whole gateway call that runs no model (catalog, balance, keys: not a POST nor a stream), from its start to its last byte, in milliseconds.',
  ),
  WORKBENCH_CATALOG_TTL_MS: integer(0, 3_600_000).describe(
    'How long the workbench reuses a fetched catalog, in milliseconds.',
  ),
  // As long as GATEWAY_ADMIN_TOKEN: a sign-in secret that cannot be guessed, even without
  // throttling.
  WORKBENCH_ACCESS_TOKEN: z
    .string()
    .min(32, 'must be at least 32 characters (e.g. openssl rand -base64 32)')
    .max(1024, 'must be at most 1024 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
    .describe(
      'The workbench\'s sign-in secret, compared in constant time (docs/workbench.md, "Sign-in"). Required to listen on an address other than loopback. Unset: no sign-in, loopback only.',
    ),
} as const;

/** What an unset variable means; a variable missing here has no default. */
export const workbenchDefaults = {
  WORKBENCH_HOST: '127.0.0.1',
  WORKBENCH_PORT: 5_173,
  WORKBENCH_ALLOWED_HOSTS: '',
  GATEWAY_DB: './data/gateway.db',
  WORKBENCH_GATEWAY_CONNECT_TIMEOUT_MS: 5_000,
  // A non-streamed completion sends its headers only when the whole answer is ready.
  WORKBENCH_GATEWAY_FIRST_BYTE_TIMEOUT_MS: 120_000,
  WORKBENCH_GATEWAY_IDLE_TIMEOUT_MS: 120_000,
  // Counted from the headers: a whole answer is ready by then, so it only has to travel.
  WORKBENCH_GATEWAY_BODY_DEADLINE_MS: 15_000,
  // A catalog or a balance is ready at once: a gateway that takes this long is not well.
  WORKBENCH_GATEWAY_CALL_DEADLINE_MS: 30_000,
  WORKBENCH_CATALOG_TTL_MS: 30_000,
} as const satisfies Partial<Record<keyof typeof workbenchVariableSchemas, string | number>>;

const variableSchemas = workbenchVariableSchemas;
const defaults = workbenchDefaults;

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
  const allowedHosts = (read(env, 'WORKBENCH_ALLOWED_HOSTS') ?? defaults.WORKBENCH_ALLOWED_HOSTS)
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  for (const name of allowedHosts) {
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(name)) {
      throw new ConfigError('WORKBENCH_ALLOWED_HOSTS', `"${name}" is not a host name`);
    }
  }
  return {
    host: read(env, 'WORKBENCH_HOST') ?? defaults.WORKBENCH_HOST,
    port: read(env, 'WORKBENCH_PORT') ?? defaults.WORKBENCH_PORT,
    allowedHosts,
    keysFile: read(env, 'WORKBENCH_KEYS_FILE') ?? null,
    dataDirectory: path.dirname(path.resolve(read(env, 'GATEWAY_DB') ?? defaults.GATEWAY_DB)),
    gatewayBaseUrl: read(env, 'GATEWAY_BASE_URL') ?? null,
    gatewayApiKey: read(env, 'GATEWAY_API_KEY') ?? null,
    timeouts: {
      connectMs:
        read(env, 'WORKBENCH_GATEWAY_CONNECT_TIMEOUT_MS') ??
        defaults.WORKBENCH_GATEWAY_CONNECT_TIMEOUT_MS,
      firstByteMs:
        read(env, 'WORKBENCH_GATEWAY_FIRST_BYTE_TIMEOUT_MS') ??
        defaults.WORKBENCH_GATEWAY_FIRST_BYTE_TIMEOUT_MS,
      idleMs:
        read(env, 'WORKBENCH_GATEWAY_IDLE_TIMEOUT_MS') ??
        defaults.WORKBENCH_GATEWAY_IDLE_TIMEOUT_MS,
      bodyDeadlineMs:
        read(env, 'WORKBENCH_GATEWAY_BODY_DEADLINE_MS') ??
        defaults.WORKBENCH_GATEWAY_BODY_DEADLINE_MS,
      callDeadlineMs:
        read(env, 'WORKBENCH_GATEWAY_CALL_DEADLINE_MS') ??
        defaults.WORKBENCH_GATEWAY_CALL_DEADLINE_MS,
    },
    catalogTtlMs: read(env, 'WORKBENCH_CATALOG_TTL_MS') ?? defaults.WORKBENCH_CATALOG_TTL_MS,
    accessToken: read(env, 'WORKBENCH_ACCESS_TOKEN'),
  };
}
