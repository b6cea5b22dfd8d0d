/**
 * The gateway's key-management routes as an account profile calls them (`/v1/keys`, Bearer): list,
 * show, create, change and revoke its child keys, and read their audited changes. Each call is
 * parsed with the `contract/` schema or fails as the BFF's one error (a gateway refusal keeps
 * its status and message, keys masked). Also: which profile holds which child key.
 */
import type { z } from 'zod';
import {
  issuedKeySchema,
  keyEventListSchema,
  managedKeyListSchema,
  managedKeySchema,
  type ManagedKey,
} from '../../contract/gateway';
import type { ChildKey, ChildKeyEvent } from '../../contract/workbench-api';
import type { LimitReset } from '../../contract/workbench-people';
import type { WorkbenchContext } from '../core/context';
import { ApiFailure, gatewayCallFailure, readGatewayAnswer } from '../core/errors';
import { GatewayCallError, type GatewayRequest } from '../core/gateway-client';
import { fetchKeyStatus } from './key-status';
import { maskKey, redactJson, redactSecretText } from '../core/secrets';

/** What `POST /v1/keys` takes. */
export interface NewChildKey {
  kind: 'allocated_child' | 'shared_child';
  name: string;
  limit_usd?: number;
  grace_usd?: number;
  expires_at?: number | null;
  /** When the limit renews (`none`: never); sent by people's policies (server/people/). */
  limit_reset?: LimitReset;
  /** Model ids or patterns the key may use; absent: every model its parent may use. */
  allowed_models?: string[];
  /** The id of the key this one replaces (a rotation); the gateway notes it in the key's history. */
  replaces?: string;
}

/** What `PATCH /v1/keys/{id}` takes. */
export interface ChildKeyChange {
  name?: string;
  limit_usd?: number;
  grace_usd?: number;
  expires_at?: number | null;
  disabled?: boolean;
  limit_reset?: LimitReset;
  allowed_models?: string[];
}

/** A created key: the full secret (for the keys store only) and its masked summary. */
export interface IssuedChildKey {
  secret: string;
  summary: ManagedKey;
}

export interface KeyCallOptions {
  signal?: AbortSignal;
  /** Receives the gateway's trace id (for the request log line). */
  onCfRay?: (cfRay: string | null) => void;
}

const keyPath = (id: string, suffix = '') => `/v1/keys/${encodeURIComponent(id)}${suffix}`;

/** One key-management call with the account key, parsed with `schema`. */
async function callKeys<T>(
  context: WorkbenchContext,
  accountKey: string,
  call: Pick<GatewayRequest, 'method' | 'path' | 'json'>,
  schema: z.ZodType<T>,
  shapeProblem: string,
  options: KeyCallOptions,
  extraKeys: string[] = [],
): Promise<T> {
  try {
    const answer = await context.gateway.collect({
      ...call,
      key: accountKey,
      signal: options.signal,
    });
    options.onCfRay?.(answer.cfRay);
    return readGatewayAnswer(answer, schema, shapeProblem, [
      ...context.profiles.allKeys(),
      ...extraKeys,
    ]);
  } catch (error) {
    if (error instanceof GatewayCallError) throw gatewayCallFailure(error, context.mode);
    throw error;
  }
}

const notAKey = 'The gateway’s answer is not a managed key (object "api_key").';

/** A call on one key whose answer is that key. */
const callOneKey = (
  context: WorkbenchContext,
  accountKey: string,
  call: Pick<GatewayRequest, 'method' | 'path' | 'json'>,
  options: KeyCallOptions,
): Promise<ManagedKey> => callKeys(context, accountKey, call, managedKeySchema, notAKey, options);

export function listChildKeys(
  context: WorkbenchContext,
  accountKey: string,
  includeRevoked: boolean,
  options: KeyCallOptions = {},
): Promise<ManagedKey[]> {
  return callKeys(
    context,
    accountKey,
    { method: 'GET', path: `/v1/keys${includeRevoked ? '?include_revoked=true' : ''}` },
    managedKeyListSchema,
    'The gateway’s list of keys does not have the expected shape (object "list" of keys).',
    options,
  ).then((list) => list.data);
}

export function showChildKey(
  context: WorkbenchContext,
  accountKey: string,
  id: string,
  options: KeyCallOptions = {},
): Promise<ManagedKey> {
  return callOneKey(context, accountKey, { method: 'GET', path: keyPath(id) }, options);
}

/** Creates a child key; the answer's full key is returned for the keys store, never passed on. */
export async function createChildKey(
  context: WorkbenchContext,
  accountKey: string,
  input: NewChildKey,
  options: KeyCallOptions = {},
): Promise<IssuedChildKey> {
  const issued = await callKeys(
    context,
    accountKey,
    { method: 'POST', path: '/v1/keys', json: input },
    issuedKeySchema,
    'The gateway’s answer to creating a key is not an issued key (object "issued_key").',
    options,
  );
  return { secret: requireSkKey(issued.key), summary: issued.data };
}

/** A key the gateway issued, refused unless it has the form every key has. */
function requireSkKey(key: string): string {
  if (!/^sk-\S+$/.test(key)) {
    throw new ApiFailure(502, {
      message:
        'The gateway issued a key that does not begin with sk-; the workbench cannot keep it.',
      stage: 'gateway',
    });
  }
  return key;
}

/**
 * The gateway's own rotate (`POST /v1/keys/{id}/rotate`): the same key, a new secret, the old
 * secret refused from the next request. Only for a key no profile holds (a handed-over one): a
 * profile's key rotates in four steps instead (key-rotation.ts).
 */
export async function rotateChildKey(
  context: WorkbenchContext,
  accountKey: string,
  id: string,
  options: KeyCallOptions = {},
): Promise<IssuedChildKey> {
  const issued = await callKeys(
    context,
    accountKey,
    { method: 'POST', path: keyPath(id, '/rotate') },
    issuedKeySchema,
    'The gateway’s answer to rotating a key is not an issued key (object "issued_key").',
    options,
  );
  return { secret: requireSkKey(issued.key), summary: issued.data };
}

export function updateChildKey(
  context: WorkbenchContext,
  accountKey: string,
  id: string,
  change: ChildKeyChange,
  options: KeyCallOptions = {},
): Promise<ManagedKey> {
  return callOneKey(
    context,
    accountKey,
    { method: 'PATCH', path: keyPath(id), json: change },
    options,
  );
}

export function revokeChildKey(
  context: WorkbenchContext,
  accountKey: string,
  id: string,
  options: KeyCallOptions = {},
): Promise<ManagedKey> {
  return callOneKey(context, accountKey, { method: 'DELETE', path: keyPath(id) }, options);
}

export async function childKeyEvents(
  context: WorkbenchContext,
  accountKey: string,
  id: string,
  page: { limit?: number; cursor?: string },
  options: KeyCallOptions = {},
): Promise<{ events: ChildKeyEvent[]; next_cursor: string | null }> {
  const search = new URLSearchParams();
  if (page.limit !== undefined) search.set('limit', String(page.limit));
  if (page.cursor !== undefined) search.set('cursor', page.cursor);
  const query = search.toString();
  const list = await callKeys(
    context,
    accountKey,
    { method: 'GET', path: keyPath(id, `/events${query ? `?${query}` : ''}`) },
    keyEventListSchema,
    'The gateway’s list of key events does not have the expected shape (object "list" of events).',
    options,
  );
  const knownKeys = context.profiles.allKeys();
  return {
    events: list.data.map((event) => ({
      id: event.id,
      key_id: event.key_id,
      actor: redactSecretText(event.actor, knownKeys),
      action: redactSecretText(event.action, knownKeys),
      // The gateway writes masked keys only; masking again guards against one that does not.
      changes: redactJson(
        Object.fromEntries(
          Object.entries(event.changes).map(([field, change]) => [
            field,
            { old: change.old, new: change.new },
          ]),
        ),
        knownKeys,
      ) as ChildKeyEvent['changes'],
      note: event.note === null ? null : redactSecretText(event.note, knownKeys),
      created_at: event.created_at,
    })),
    next_cursor: list.has_more ? list.next_cursor : null,
  };
}

/** A managed key as the browser sees it: the known fields only, masked, and its profile. */
export function childKeyOf(
  key: ManagedKey,
  profile: string | null,
  knownKeys: Iterable<string>,
): ChildKey {
  const keys = [...knownKeys];
  return {
    id: key.id,
    kind: key.kind,
    parent_id: key.parent_id,
    name: redactSecretText(key.name, keys),
    key: redactSecretText(key.key, keys),
    state: key.state,
    limit_usd: key.limit_usd,
    grace_usd: key.grace_usd,
    consumption_usd: key.consumption_usd,
    remaining_usd: key.remaining_usd,
    allocated_usd: key.allocated_usd ?? null,
    expires_at: key.expires_at,
    disabled: key.disabled,
    created_at: key.created_at,
    revoked_at: key.revoked_at ?? null,
    profile,
  };
}

/**
 * Which profiles hold each of these keys: key id → profile names, compared by the full keys the
 * workbench holds. A profile's key id is known once the workbench created the key, or once the
 * gateway's `GET /v1/key` (free) told it for that key; it never changes, so it is asked once. A
 * key the gateway no longer answers for (revoked) is matched by its masked form alone.
 */
export async function profilesHolding(
  context: WorkbenchContext,
  keys: ManagedKey[],
): Promise<Map<string, string[]>> {
  const { profiles } = context;
  const holders = new Map<string, string[]>();
  const hold = (id: string, name: string) => holders.set(id, [...(holders.get(id) ?? []), name]);
  const ids = new Set(keys.map((key) => key.id));
  await Promise.all(
    profiles.names().map(async (name) => {
      const secret = profiles.keyOf(name);
      let id = profiles.keyIdOf(name);
      if (id === null) {
        const status = await fetchKeyStatus(context, secret).catch(() => null);
        if (status) {
          id = status.id;
          profiles.rememberKeyId(secret, id);
        }
      }
      if (id !== null) {
        if (ids.has(id)) hold(id, name);
        return;
      }
      const sameMask = keys.filter((key) => key.key === maskKey(secret));
      if (sameMask.length === 1) hold(sameMask[0]!.id, name);
    }),
  );
  // Profiles in the order the workbench lists them, whatever order the lookups ended in.
  const order = profiles.names();
  for (const names of holders.values()) names.sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return holders;
}
