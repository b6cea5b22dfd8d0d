/**
 * The workbench's configuration, read from the environment once and validated with zod. This is
 * the only module of `server/` that reads `process.env`; everything else gets typed values.
 */
import path from 'node:path';
import { z } from 'zod';
import type { MemberKeyPolicy } from '../../contract/workbench-people';

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
  /** OpenID Connect sign-in for people (WORKBENCH_OIDC_*); null when WORKBENCH_OIDC_ISSUER is unset. */
  oidc: OidcSettings | null;
}

/** Who may become an admin, and which claim carries the groups. */
export interface RoleSettings {
  /** Lower-case addresses (WORKBENCH_ADMIN_EMAILS). */
  adminEmails: string[];
  /** WORKBENCH_ADMIN_GROUPS, compared exactly. */
  adminGroups: string[];
  /** WORKBENCH_OIDC_GROUPS_CLAIM. */
  groupsClaim: string;
}

export interface OidcSettings extends RoleSettings {
  issuer: string;
  clientId: string;
  /** Null: a public client, which PKCE alone protects. */
  clientSecret: string | null;
  /** WORKBENCH_PUBLIC_URL without a trailing slash; the redirect is `${publicUrl}/auth/oidc/callback`. */
  publicUrl: string;
  /** WORKBENCH_TEAM_PROFILE: the account key profile people's keys are made under; null: no keys. */
  teamProfile: string | null;
  defaultPolicy: MemberKeyPolicy;
  /** WORKBENCH_MEMBER_POLICY_FILE: a policy per group; null when unset. */
  policyFile: string | null;
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

/** A USD amount a key's limit may take. */
const usdAmount = z
  .string()
  .regex(/^\d+(\.\d+)?$/, 'must be a number of USD, such as 50 or 12.5')
  .transform(Number)
  .refine((value) => value <= 1_000_000, { message: 'must be at most 1000000' })
  .meta({ type: 'number', minimum: 0, maximum: 1_000_000 });

const profileNameVariable = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/, 'must be a key profile name');

const isLoopbackName = (hostname: string) =>
  hostname === 'localhost' || hostname.startsWith('127.') || hostname === '[::1]';

/** An http(s) URL without query, fragment or credentials, and without a trailing slash. */
function httpUrl(
  value: string,
  context: z.core.$RefinementCtx<string>,
  options: { loopbackHttpOnly: boolean },
): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    context.addIssue({ code: 'custom', message: 'is not a URL' });
    return z.NEVER;
  }
  const plainHttpRefused =
    url.protocol === 'http:' && options.loopbackHttpOnly && !isLoopbackName(url.hostname);
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || plainHttpRefused) {
    context.addIssue({
      code: 'custom',
      message: options.loopbackHttpOnly
        ? 'must be an https:// URL (http:// only on a loopback address)'
        : 'must be an http:// or https:// URL',
    });
    return z.NEVER;
  }
  if (url.search || url.hash || url.username || url.password) {
    context.addIssue({
      code: 'custom',
      message: 'must not carry a query, a fragment or credentials',
    });
    return z.NEVER;
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** Variables whose value may be shown in an error message (never the key). */
const secretVariables = new Set([
  'GATEWAY_API_KEY',
  'WORKBENCH_ACCESS_TOKEN',
  'WORKBENCH_OIDC_CLIENT_SECRET',
]);

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
  WORKBENCH_OIDC_ISSUER: z
    .string()
    .transform((value, context) => httpUrl(value, context, { loopbackHttpOnly: true }))
    .meta({
      description:
        'The OpenID Connect issuer people sign in with (Google Workspace, Okta, Entra ID, Keycloak…): with it, people sign in with their company identity and get a key of their own (docs/workbench.md, "People").',
      values: 'an https:// URL (http:// only on a loopback address, for tests)',
    }),
  WORKBENCH_OIDC_CLIENT_ID: z
    .string()
    .min(1)
    .describe("The workbench's client id at the issuer; required with `WORKBENCH_OIDC_ISSUER`."),
  WORKBENCH_OIDC_CLIENT_SECRET: z
    .string()
    .min(1)
    .describe(
      'The client secret at the issuer. Unset: a public client, which PKCE alone protects.',
    ),
  WORKBENCH_PUBLIC_URL: z
    .string()
    .transform((value, context) => httpUrl(value, context, { loopbackHttpOnly: false }))
    .meta({
      description:
        "The workbench's own address as people's browsers reach it, for the sign-in redirect (`<url>/auth/oidc/callback`, registered at the issuer); its host is accepted like `WORKBENCH_ALLOWED_HOSTS`. Required with `WORKBENCH_OIDC_ISSUER`.",
      values: 'an http:// or https:// URL without query, fragment or credentials',
    }),
  WORKBENCH_ADMIN_EMAILS: z.string().meta({
    description:
      'People who are admins, by the verified e-mail address of their sign-in: they see and manage every key and person. Everyone else is a member.',
    values: 'comma-separated e-mail addresses',
  }),
  WORKBENCH_ADMIN_GROUPS: z.string().meta({
    description:
      'Groups whose people are admins, as the issuer names them in the groups claim (`WORKBENCH_OIDC_GROUPS_CLAIM`).',
    values: 'comma-separated group names',
  }),
  WORKBENCH_OIDC_GROUPS_CLAIM: z
    .string()
    .regex(/^[A-Za-z0-9_:/.-]{1,200}$/, 'must be a claim name')
    .describe("The ID token claim that lists a person's groups."),
  WORKBENCH_TEAM_PROFILE: profileNameVariable.describe(
    'The account key profile under which each person gets a child key of their own at first sign-in. Unset: people sign in but get no key.',
  ),
  WORKBENCH_MEMBER_KEY_KIND: z
    .enum(['allocated_child', 'shared_child'])
    .describe(
      "The kind of a person's own key: `allocated_child` has a budget of its own; `shared_child` spends the team key's.",
    ),
  WORKBENCH_MEMBER_KEY_LIMIT_USD: usdAmount.describe(
    "A person's own key's limit in USD (for each period when `WORKBENCH_MEMBER_KEY_RESET` sets one); allocated children only.",
  ),
  WORKBENCH_MEMBER_KEY_RESET: z
    .enum(['none', 'daily', 'weekly', 'monthly'])
    .describe("When a person's own key's budget renews (00:00 UTC; weeks on Monday)."),
  WORKBENCH_MEMBER_KEY_ALLOWED_MODELS: z.string().meta({
    description:
      "The models a person's own key may use: ids or patterns such as `anthropic/*`. Empty: every model the team key may use.",
    values: 'comma-separated model ids or patterns',
  }),
  WORKBENCH_MEMBER_POLICY_FILE: z
    .string()
    .min(1)
    .describe(
      'A JSON file of key policies per group, `{"groups": {"<group>": {"kind", "limit_usd", "limit_reset", "allowed_models"}}}`: a person gets the first listed group\'s policy they belong to, else the `WORKBENCH_MEMBER_KEY_*` one.',
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
  WORKBENCH_OIDC_GROUPS_CLAIM: 'groups',
  WORKBENCH_MEMBER_KEY_KIND: 'allocated_child',
  WORKBENCH_MEMBER_KEY_LIMIT_USD: 10,
  WORKBENCH_MEMBER_KEY_RESET: 'monthly',
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
    oidc: readOidcSettings(env),
  };
}

const commaList = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

/** The people's sign-in settings; null without WORKBENCH_OIDC_ISSUER. */
function readOidcSettings(env: Record<string, string | undefined>): OidcSettings | null {
  const issuer = read(env, 'WORKBENCH_OIDC_ISSUER');
  if (issuer === undefined) return null;
  const required = <Name extends 'WORKBENCH_OIDC_CLIENT_ID' | 'WORKBENCH_PUBLIC_URL'>(
    name: Name,
  ) => {
    const value = read(env, name);
    if (value === undefined) {
      throw new ConfigError(name, 'must be set when WORKBENCH_OIDC_ISSUER is set');
    }
    return value;
  };
  const kind = read(env, 'WORKBENCH_MEMBER_KEY_KIND') ?? defaults.WORKBENCH_MEMBER_KEY_KIND;
  const limit = read(env, 'WORKBENCH_MEMBER_KEY_LIMIT_USD');
  if (kind === 'shared_child' && limit !== undefined) {
    throw new ConfigError(
      'WORKBENCH_MEMBER_KEY_LIMIT_USD',
      "must be unset when WORKBENCH_MEMBER_KEY_KIND is shared_child: a shared child spends its parent's balance",
    );
  }
  return {
    issuer,
    clientId: required('WORKBENCH_OIDC_CLIENT_ID'),
    clientSecret: read(env, 'WORKBENCH_OIDC_CLIENT_SECRET') ?? null,
    publicUrl: required('WORKBENCH_PUBLIC_URL'),
    adminEmails: commaList(read(env, 'WORKBENCH_ADMIN_EMAILS')).map((email) => email.toLowerCase()),
    adminGroups: commaList(read(env, 'WORKBENCH_ADMIN_GROUPS')),
    groupsClaim: read(env, 'WORKBENCH_OIDC_GROUPS_CLAIM') ?? defaults.WORKBENCH_OIDC_GROUPS_CLAIM,
    teamProfile: read(env, 'WORKBENCH_TEAM_PROFILE') ?? null,
    defaultPolicy: {
      kind,
      limit_usd:
        kind === 'shared_child' ? null : (limit ?? defaults.WORKBENCH_MEMBER_KEY_LIMIT_USD),
      limit_reset: read(env, 'WORKBENCH_MEMBER_KEY_RESET') ?? defaults.WORKBENCH_MEMBER_KEY_RESET,
      allowed_models: commaList(read(env, 'WORKBENCH_MEMBER_KEY_ALLOWED_MODELS')),
    },
    policyFile: read(env, 'WORKBENCH_MEMBER_POLICY_FILE') ?? null,
  };
}
