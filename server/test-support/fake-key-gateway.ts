/**
 * A fake gateway that manages keys like the real one (`/v1/keys`, `/v1/key`, inference refused
 * for a revoked key), on loopback, with failures a test can inject per route: the rotation's
 * steps can each be made to fail.
 */
import type { ServerResponse } from 'node:http';
import { formatNanosUsd, usdToNanos } from '../../contract/usd-nanos';
import { maskKey } from '../core/secrets';
import { fakeKey } from './harness';
import {
  defaultHandler,
  sendJson,
  startFakeGateway,
  type FakeGateway,
  type RecordedRequest,
} from './fake-gateway';

export interface FakeKey {
  id: string;
  secret: string;
  kind: 'account' | 'allocated_child' | 'shared_child';
  parentId: string | null;
  name: string;
  limitUsd: number;
  graceUsd: number;
  consumptionUsd: number;
  expiresAt: number | null;
  disabled: boolean;
  revokedAt: number | null;
}

/** A failure to inject: the status and gateway error body to answer with. */
export interface InjectedFailure {
  status: number;
  error: string;
  type?: string;
}

export interface FakeKeyGateway extends FakeGateway {
  keys: Map<string, FakeKey>;
  /** Adds a key; returns it (secret included, for the test's profiles). */
  addKey(fields: Partial<FakeKey> & Pick<FakeKey, 'kind'>): FakeKey;
  /** Failures for the next matching calls, by route; each one is used once. */
  failNext: {
    create?: InjectedFailure;
    revoke?: InjectedFailure;
    /** Revocations of this key id fail (always, until cleared). */
    revokeId?: string;
    verify?: InjectedFailure;
  };
  events: Array<{ key_id: string; action: string; changes: Record<string, unknown> }>;
}

let counter = 0;

function summary(key: FakeKey, keys: Map<string, FakeKey>) {
  const shared = key.kind === 'shared_child';
  const parent = key.parentId ? keys.get(key.parentId) : undefined;
  const funding = shared && parent ? parent : key;
  const remaining = Math.max(funding.limitUsd - funding.consumptionUsd, 0);
  const now = Math.floor(Date.now() / 1000);
  const state =
    key.revokedAt !== null
      ? 'revoked'
      : key.disabled
        ? 'disabled'
        : key.expiresAt !== null && key.expiresAt <= now
          ? 'expired'
          : remaining <= 0
            ? 'depleted'
            : 'active';
  return {
    object: 'api_key',
    id: key.id,
    kind: key.kind,
    parent_id: key.parentId,
    name: key.name,
    key: maskKey(key.secret),
    state,
    limit_usd: shared ? null : key.limitUsd,
    grace_usd: shared ? null : key.graceUsd,
    consumption_usd: shared ? null : key.consumptionUsd,
    remaining_usd: remaining,
    recharge_usd: null,
    credit_usd: null,
    allocated_usd: shared ? null : key.limitUsd,
    expires_at: key.expiresAt,
    disabled: key.disabled,
    created_at: 1_700_000_000,
    revoked_at: key.revokedAt,
  };
}

const fail = (response: ServerResponse, failure: InjectedFailure) =>
  sendJson(response, failure.status, {
    error: failure.error,
    type: failure.type ?? 'invalid_request',
    stage: failure.status === 402 ? 'admission' : 'validation',
  });

export async function startFakeKeyGateway(): Promise<FakeKeyGateway> {
  const keys = new Map<string, FakeKey>();
  const failNext: FakeKeyGateway['failNext'] = {};
  const events: FakeKeyGateway['events'] = [];
  const addKey: FakeKeyGateway['addKey'] = (fields) => {
    counter += 1;
    const key: FakeKey = {
      id: `key_${counter.toString(36).padStart(6, '0')}`,
      secret: fakeKey(),
      parentId: null,
      name: `${fields.kind} ${counter}`,
      limitUsd: fields.kind === 'shared_child' ? 0 : 10,
      graceUsd: 0,
      consumptionUsd: 0,
      expiresAt: null,
      disabled: false,
      revokedAt: null,
      ...fields,
    };
    keys.set(key.id, key);
    return key;
  };

  const presenter = (request: RecordedRequest) => {
    const secret = request.headers.authorization?.replace(/^Bearer /, '');
    return [...keys.values()].find((key) => key.secret === secret && key.revokedAt === null);
  };

  const gateway = await startFakeGateway(async (request, response) => {
    const url = new URL(request.url, 'http://fake');
    const path = url.pathname;
    if (path === '/v1/models') return defaultHandler(request, response);
    const caller = presenter(request);
    if (!caller) return sendJson(response, 401, { error: 'Unknown or revoked key.' });

    if (path === '/v1/key') {
      const view = summary(caller, keys);
      return sendJson(response, 200, {
        object: 'key',
        id: caller.id,
        key: view.key,
        name: caller.name,
        identity: caller.kind,
        state: view.state,
        can_spend: view.state === 'active',
        blocked_by: null,
        expires_at: caller.expiresAt,
      });
    }
    if (path === '/v1/chat/completions') {
      const failure = failNext.verify;
      if (failure) {
        delete failNext.verify;
        return fail(response, failure);
      }
      return defaultHandler(request, response);
    }
    if (!path.startsWith('/v1/keys')) return defaultHandler(request, response);

    if (caller.kind !== 'account') {
      return sendJson(response, 403, {
        error: `Only an account key manages child keys; this is a child key (${caller.secret}). Ask the owner of its account key.`,
        type: 'permission_denied',
        stage: 'authentication',
      });
    }
    const body = request.body ? (JSON.parse(request.body) as Record<string, unknown>) : {};
    if (path === '/v1/keys' && request.method === 'GET') {
      const all = url.searchParams.get('include_revoked') === 'true';
      const data = [...keys.values()]
        .filter((key) => key.parentId === caller.id && (all || key.revokedAt === null))
        .map((key) => summary(key, keys));
      return sendJson(response, 200, { object: 'list', data });
    }
    if (path === '/v1/keys' && request.method === 'POST') {
      if (failNext.create) {
        const failure = failNext.create;
        delete failNext.create;
        return fail(response, failure);
      }
      const created = addKey({
        kind: body.kind as FakeKey['kind'],
        parentId: caller.id,
        name: String(body.name),
        limitUsd: typeof body.limit_usd === 'number' ? body.limit_usd : 10,
        graceUsd: typeof body.grace_usd === 'number' ? body.grace_usd : 0,
        expiresAt: typeof body.expires_at === 'number' ? body.expires_at : null,
      });
      events.push({ key_id: created.id, action: 'create', changes: body });
      response.writeHead(201, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      response.end(
        JSON.stringify({
          object: 'issued_key',
          key: created.secret,
          data: summary(created, keys),
          note: 'The full key is shown in this answer only.',
        }),
      );
      return;
    }
    const match = /^\/v1\/keys\/([^/]+)(\/events|\/rotate)?$/.exec(path);
    const target = match ? keys.get(decodeURIComponent(match[1]!)) : undefined;
    if (!match || !target || target.parentId !== caller.id) {
      return sendJson(response, 404, {
        error: 'No key is managed by this caller.',
        type: 'not_found',
        stage: 'validation',
      });
    }
    if (match[2] === '/rotate' && request.method === 'POST') {
      // The gateway's own rotate: the same key, a new secret, the old one refused from now on.
      target.secret = fakeKey();
      events.push({ key_id: target.id, action: 'rotate', changes: {} });
      response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      response.end(
        JSON.stringify({
          object: 'issued_key',
          key: target.secret,
          data: summary(target, keys),
          note: 'The full key is shown in this answer only.',
        }),
      );
      return;
    }
    if (match[2] === '/events' && request.method === 'GET') {
      const data = events
        .filter((event) => event.key_id === target.id)
        .map((event, index) => ({
          object: 'key_event',
          id: index + 1,
          key_id: event.key_id,
          actor: caller.id,
          action: event.action,
          changes: Object.fromEntries(
            Object.entries(event.changes).map(([field, value]) => [
              field,
              { old: null, new: value },
            ]),
          ),
          note: null,
          created_at: 1_700_000_000,
        }))
        .reverse();
      return sendJson(response, 200, { object: 'list', data, has_more: false, next_cursor: null });
    }
    if (request.method === 'GET') return sendJson(response, 200, summary(target, keys));
    if (request.method === 'PATCH') {
      if (typeof body.limit_usd === 'number' && body.limit_usd < target.consumptionUsd) {
        return sendJson(response, 400, {
          error: `'limit_usd' ${body.limit_usd} is below what this key has already spent: ${formatNanosUsd(usdToNanos(target.consumptionUsd))}.`,
          type: 'invalid_request',
          stage: 'validation',
        });
      }
      if (typeof body.name === 'string') target.name = body.name;
      if (typeof body.limit_usd === 'number') target.limitUsd = body.limit_usd;
      if (typeof body.disabled === 'boolean') target.disabled = body.disabled;
      if (body.expires_at !== undefined) target.expiresAt = body.expires_at as number | null;
      events.push({ key_id: target.id, action: 'update', changes: body });
      return sendJson(response, 200, summary(target, keys));
    }
    if (request.method === 'DELETE') {
      if (failNext.revoke || failNext.revokeId === target.id) {
        const failure = failNext.revoke ?? {
          status: 503,
          error: 'The gateway could not revoke the key now.',
          type: 'unavailable',
        };
        delete failNext.revoke;
        return fail(response, failure);
      }
      target.revokedAt ??= 1_700_000_100;
      events.push({ key_id: target.id, action: 'revoke', changes: {} });
      return sendJson(response, 200, summary(target, keys));
    }
    sendJson(response, 405, { error: 'Method not allowed.' });
  });

  return Object.assign(gateway, { keys, addKey, failNext, events });
}
