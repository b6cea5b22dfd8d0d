/**
 * `/v1/keys`: an account key manages its child keys. A child gets 403; a key that is not the
 * caller's child is 404; every change is audited; a rotated or revoked secret is refused by the
 * very next request; the full key is in the create and rotate answers only (scanned for at the
 * end, in every answer, header and log line of this file).
 */
import http from 'node:http';
import {
  balanceSchema,
  gatewayErrorBodySchema,
  issuedKeySchema,
  keyEventListSchema,
  managedKeyListSchema,
  managedKeySchema,
  type IssuedKeyAnswer,
  type KeyEvent,
} from '../../contract/gateway';
import {
  capturingLogger,
  chatBody,
  getWithKey,
  postJson,
  startTestGateway,
  toNanos,
  type TestGateway,
} from '../../testing/gateway-support';

let gateway: TestGateway;
const log = capturingLogger('debug');
/** Every answer of this file, with whether it is one that may carry a full key. */
const transcript: Array<{ label: string; text: string; issuing: boolean }> = [];
const minted: string[] = [];

beforeAll(async () => {
  gateway = await startTestGateway({ settleIntervalMs: 600_000 }, { logger: log.logger });
});
afterAll(async () => {
  await gateway.stop();
});

type Answer = { status: number; body: unknown };

async function call(
  method: string,
  path: string,
  key: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  const parsed: unknown = text === '' ? null : JSON.parse(text);
  const issuing = (parsed as { object?: string } | null)?.object === 'issued_key';
  if (issuing) minted.push(issuedKeySchema.parse(parsed).key);
  transcript.push({
    label: `${method} ${path} → ${response.status}`,
    text: `${JSON.stringify([...response.headers])}\n${text}`,
    issuing,
  });
  return { status: response.status, body: parsed };
}

const error = (answer: Answer) => gatewayErrorBodySchema.parse(answer.body);

async function createChild(
  account: string,
  body: Record<string, unknown>,
): Promise<IssuedKeyAnswer> {
  const answer = await call('POST', '/v1/keys', account, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return issuedKeySchema.parse(answer.body);
}

async function infer(key: string): Promise<number> {
  const response = await postJson(
    `${gateway.url}/v1/chat/completions`,
    chatBody({ max_tokens: 8 }),
    { key },
  );
  transcript.push({ label: 'inference', text: await response.text(), issuing: false });
  return response.status;
}

async function balance(key: string) {
  const response = await getWithKey(`${gateway.url}/v1/balance`, key);
  const text = await response.text();
  transcript.push({ label: 'balance', text, issuing: false });
  return balanceSchema.parse(JSON.parse(text));
}

async function events(account: string, id: string, query = ''): Promise<KeyEvent[]> {
  const answer = await call('GET', `/v1/keys/${id}/events${query}`, account);
  expect(answer.status).toBe(200);
  return keyEventListSchema.parse(answer.body).data;
}

/**
 * Sends a write's head and the first bytes of a body it declares longer, and waits for the answer
 * without sending the rest: status 0 when none comes within a few seconds (the route is waiting
 * for the body, so it did not refuse before reading it).
 */
function answerBeforeBody(
  method: string,
  path: string,
  key: string,
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const target = new URL(`${gateway.url}${path}`);
    const giveUp = setTimeout(() => {
      request.destroy();
      resolve({ status: 0, body: null });
    }, 5_000);
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method,
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': 4_000,
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => {
          clearTimeout(giveUp);
          transcript.push({ label: `${method} ${path} (unsent body)`, text, issuing: false });
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) });
          request.destroy();
        });
      },
    );
    request.on('error', (failure) => (request.destroyed ? undefined : reject(failure)));
    request.write('{"kind":"shared_child","name":"');
  });
}

describe('/v1/keys', () => {
  it('creates allocated and shared children; each key shows once and works at once', async () => {
    const account = await gateway.createKey({ kind: 'account', limitUsd: 10 });
    const allocated = await createChild(account.key, {
      kind: 'allocated_child',
      name: 'ci runner',
      limit_usd: 2.5,
      grace_usd: 0.1,
      expires_at: 4_102_444_800,
    });
    expect(allocated.data).toMatchObject({
      object: 'api_key',
      kind: 'allocated_child',
      parent_id: account.id,
      name: 'ci runner',
      state: 'active',
      limit_usd: 2.5,
      grace_usd: 0.1,
      remaining_usd: 2.5,
      expires_at: 4_102_444_800,
      disabled: false,
    });
    expect(allocated.data.key).toBe(`${allocated.key.slice(0, 7)}…${allocated.key.slice(-4)}`);
    const shared = await createChild(account.key, { kind: 'shared_child', name: 'intern' });
    expect(shared.data).toMatchObject({
      kind: 'shared_child',
      limit_usd: null,
      remaining_usd: 7.5,
    });

    expect(await infer(allocated.key)).toBe(200);
    expect(await infer(shared.key)).toBe(200);

    // The allocation came from the account's own limit: limit = recharge + credit - allocated.
    const parent = await balance(account.key);
    expect(parent).toMatchObject({
      limit_usd: 7.5,
      recharge_usd: 10,
      credit_usd: 0,
      allocated_usd: 2.5,
    });
    expect(await balance(allocated.key)).toMatchObject({
      limit_usd: 2.5,
      allocated_usd: 2.5,
      recharge_usd: 0,
    });

    const listed = await call('GET', '/v1/keys', account.key);
    expect(listed.status).toBe(200);
    const keys = managedKeyListSchema.parse(listed.body).data;
    expect(keys.map((key) => key.id).sort()).toEqual([allocated.data.id, shared.data.id].sort());
    const shown = await call('GET', `/v1/keys/${shared.data.id}`, account.key);
    expect(managedKeySchema.parse(shown.body)).toMatchObject({
      id: shared.data.id,
      name: 'intern',
    });
  });

  it("refuses a child's limit the account cannot give, with the figures", async () => {
    const account = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const refused = await call('POST', '/v1/keys', account.key, {
      kind: 'allocated_child',
      limit_usd: 1.5,
    });
    expect(refused.status).toBe(400);
    expect(error(refused).error).toMatch(/'limit_usd' needs \$1\.50 .* has \$1\.00 left to give/);
    const child = await createChild(account.key, { kind: 'allocated_child', limit_usd: 0.75 });
    const raise = await call('PATCH', `/v1/keys/${child.data.id}`, account.key, {
      limit_usd: 1.25,
    });
    expect(raise.status).toBe(400);
    expect(error(raise).error).toContain('$0.25 left to give');
    expect((await balance(account.key)).limit_usd).toBe(0.25);
  });

  it('changes name, limit, grace, expiry and disabled, and the next request follows', async () => {
    const account = await gateway.createKey({ kind: 'account', limitUsd: 5 });
    const child = await createChild(account.key, { kind: 'allocated_child', limit_usd: 1 });
    const path = `/v1/keys/${child.data.id}`;

    const disabled = await call('PATCH', path, account.key, { disabled: true, name: 'paused' });
    expect(managedKeySchema.parse(disabled.body)).toMatchObject({
      state: 'disabled',
      name: 'paused',
      disabled: true,
    });
    expect(await infer(child.key)).toBe(402);
    await call('PATCH', path, account.key, { disabled: false });
    expect(await infer(child.key)).toBe(200);

    await call('PATCH', path, account.key, { expires_at: 1_000_000 });
    expect(await infer(child.key)).toBe(402);
    const lifted = await call('PATCH', path, account.key, { expires_at: null, grace_usd: 0.05 });
    expect(managedKeySchema.parse(lifted.body)).toMatchObject({
      expires_at: null,
      grace_usd: 0.05,
      state: 'active',
    });
    expect(await infer(child.key)).toBe(200);

    // Lowering gives the difference back to the account.
    const lowered = await call('PATCH', path, account.key, { limit_usd: 0.5 });
    expect(managedKeySchema.parse(lowered.body).limit_usd).toBe(0.5);
    expect(await balance(account.key)).toMatchObject({
      limit_usd: 4.5,
      allocated_usd: 0.5,
      recharge_usd: 5,
    });
  });

  it('refuses a limit below what the child has spent, with the figures', async () => {
    const account = await gateway.createKey({ kind: 'account', limitUsd: 5 });
    const child = await createChild(account.key, { kind: 'allocated_child', limit_usd: 1 });
    expect(await infer(child.key)).toBe(200);
    expect(await infer(child.key)).toBe(200);
    await gateway.gateway.settlement.settleNow();
    expect(await infer(child.key)).toBe(200); // one more, still pending
    const refused = await call('PATCH', `/v1/keys/${child.data.id}`, account.key, { limit_usd: 0 });
    expect(refused.status).toBe(400);
    const message = error(refused).error;
    expect(message).toMatch(
      /'limit_usd' 0 is below what this key has already spent: \$[\d.]+ \(\$[\d.]+ settled, \$[\d.]+ not yet settled\)\. Set it to at least [\d.]+\./,
    );
    const spent = Number(/Set it to at least ([\d.]+)\./.exec(message)![1]);
    expect(spent).toBeGreaterThan(0);
    const exact = await call('PATCH', `/v1/keys/${child.data.id}`, account.key, {
      limit_usd: spent,
    });
    expect(exact.status).toBe(200);
    // remaining_usd counts settled consumption only: once all settles, nothing is left.
    await gateway.gateway.settlement.settleNow();
    const shown = await call('GET', `/v1/keys/${child.data.id}`, account.key);
    expect(managedKeySchema.parse(shown.body)).toMatchObject({
      state: 'depleted',
      remaining_usd: 0,
    });
  });

  it.each([
    ['an unknown field', { kind: 'shared_child', limit: 5 }, "'limit'"],
    ['a wrong type', { kind: 'allocated_child', limit_usd: 'five' }, "'limit_usd'"],
    ['a negative limit', { kind: 'allocated_child', limit_usd: -1 }, "'limit_usd'"],
    ['a missing kind', { name: 'x' }, "'kind'"],
    ['an account kind', { kind: 'account' }, "'kind'"],
    ['a limit on a shared child', { kind: 'shared_child', limit_usd: 1 }, "'limit_usd'"],
    ['a fractional expiry', { kind: 'shared_child', expires_at: 1.5 }, "'expires_at'"],
    ['an empty name', { kind: 'shared_child', name: ' ' }, "'name'"],
    ['not an object', [1, 2], "'body'"],
  ])('refuses %s with a 400 naming the field', async (_case, body, field) => {
    const account = await gateway.createKey({ kind: 'account' });
    const refused = await call('POST', '/v1/keys', account.key, body);
    expect(refused.status).toBe(400);
    expect(error(refused)).toMatchObject({ type: 'invalid_request', stage: 'validation' });
    expect(error(refused).error).toContain(field);
  });

  it('refuses a body that is not JSON (415), too large (413), a limit on a shared child or a change of nothing (400)', async () => {
    const account = await gateway.createKey({ kind: 'account' });
    const child = await createChild(account.key, { kind: 'shared_child' });
    expect(
      (
        await call('POST', '/v1/keys', account.key, 'kind=shared_child', {
          'content-type': 'text/plain',
        })
      ).status,
    ).toBe(415);
    const large = await call('POST', '/v1/keys', account.key, {
      kind: 'shared_child',
      name: 'x'.repeat(20_000),
    });
    expect(large.status).toBe(413);
    const shared = await call('PATCH', `/v1/keys/${child.data.id}`, account.key, { limit_usd: 1 });
    expect(shared.status).toBe(400);
    expect(error(shared).error).toMatch(/^Invalid field 'limit_usd': A shared_child key spends/);
    const nothing = await call('PATCH', `/v1/keys/${child.data.id}`, account.key, {});
    expect(nothing.status).toBe(400);
    expect(error(nothing).error).toMatch(/at least one/);
  });

  it('gives a child key 403 on every route, and any key outside the account 404', async () => {
    const account = await gateway.createKey({ kind: 'account' });
    const child = await createChild(account.key, { kind: 'allocated_child', limit_usd: 1 });
    const sibling = await createChild(account.key, { kind: 'shared_child' });
    const other = await gateway.createKey({ kind: 'account' });
    const stranger = await createChild(other.key, { kind: 'shared_child' });

    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/v1/keys'],
      ['POST', '/v1/keys', { kind: 'shared_child' }],
      ['GET', `/v1/keys/${sibling.data.id}`],
      ['PATCH', `/v1/keys/${sibling.data.id}`, { disabled: true }],
      ['DELETE', `/v1/keys/${sibling.data.id}`],
      ['POST', `/v1/keys/${sibling.data.id}/rotate`],
      ['GET', `/v1/keys/${sibling.data.id}/events`],
      ['PATCH', `/v1/keys/${child.data.id}`, { limit_usd: 1000 }],
    ];
    for (const childKey of [child.key, sibling.key]) {
      for (const [method, path, body] of routes) {
        const refused = await call(method, path, childKey, body);
        expect(refused.status, `${method} ${path}`).toBe(403);
        expect(error(refused)).toMatchObject({ type: 'permission_denied' });
      }
    }
    // Nothing changed.
    expect(await infer(sibling.key)).toBe(200);

    // Another account's child, the account itself, and a key that never existed look the same.
    for (const id of [stranger.data.id, account.id, other.id, 'key_doesnotexist']) {
      for (const [method, suffix, body] of [
        ['GET', ''],
        ['PATCH', '', { disabled: true }],
        ['DELETE', ''],
        ['POST', '/rotate'],
        ['GET', '/events'],
      ] as Array<[string, string, unknown?]>) {
        const refused = await call(method, `/v1/keys/${id}${suffix}`, account.key, body);
        expect(refused.status, `${method} ${id}${suffix}`).toBe(404);
        expect(error(refused).error).toMatch(/^No key .* is managed by this caller\.$/);
      }
    }
    expect(await infer(stranger.key)).toBe(200);
    expect(await infer(other.key)).toBe(200);
    const listed = managedKeyListSchema.parse(
      (await call('GET', '/v1/keys', account.key)).body,
    ).data;
    expect(listed.map((key) => key.id).sort()).toEqual([child.data.id, sibling.data.id].sort());
  });

  it.each([
    ['a disabled', (id: string) => gateway.gateway.admin.setDisabled(id, true), 'key_disabled'],
    [
      'an expired',
      (id: string) => gateway.gateway.admin.set(id, { expiresAt: 1_000 }),
      'key_expired',
    ],
  ] as const)(
    'refuses %s account key every change, before reading the body; it may still look',
    async (_state, stop, type) => {
      const account = await gateway.createKey({ kind: 'account' });
      const child = await createChild(account.key, { kind: 'shared_child' });
      await stop(account.id);
      await gateway.refreshKeys();

      const created = await answerBeforeBody('POST', '/v1/keys', account.key);
      expect(created.status).toBe(402);
      expect(gatewayErrorBodySchema.parse(created.body)).toMatchObject({ type });
      expect(gatewayErrorBodySchema.parse(created.body).error).toContain(
        'cannot create, change, rotate or revoke child keys',
      );
      const changed = await answerBeforeBody('PATCH', `/v1/keys/${child.data.id}`, account.key);
      expect(changed.status).toBe(402);
      for (const [method, suffix] of [
        ['DELETE', ''],
        ['POST', '/rotate'],
      ]) {
        const refused = await call(method!, `/v1/keys/${child.data.id}${suffix}`, account.key);
        expect(refused.status, `${method} ${suffix}`).toBe(402);
        expect(error(refused)).toMatchObject({ type });
      }
      // Nothing changed: the child's old secret is still its secret (a rotation would 401 it).
      expect((await getWithKey(`${gateway.url}/v1/balance`, child.key)).status).toBe(200);
      // Looking is not acting: the listing (no new child in it), the child and its history.
      const listed = await call('GET', '/v1/keys', account.key);
      expect(listed.status).toBe(200);
      expect(managedKeyListSchema.parse(listed.body).data.map((key) => key.id)).toEqual([
        child.data.id,
      ]);
      const shown = await call('GET', `/v1/keys/${child.data.id}`, account.key);
      expect(managedKeySchema.parse(shown.body)).toMatchObject({
        disabled: false,
        revoked_at: null,
      });
      expect(await events(account.key, child.data.id)).toHaveLength(1);
    },
  );

  it('lets a depleted account key manage its children: managing spends nothing', async () => {
    const account = await gateway.createKey({ kind: 'account', limitUsd: 0 });
    expect(await infer(account.key)).toBe(402);
    const child = await createChild(account.key, { kind: 'shared_child' });
    const disabled = await call('PATCH', `/v1/keys/${child.data.id}`, account.key, {
      disabled: true,
    });
    expect(disabled.status).toBe(200);
    expect(managedKeySchema.parse(disabled.body).disabled).toBe(true);
    expect((await call('POST', `/v1/keys/${child.data.id}/rotate`, account.key)).status).toBe(200);
    expect((await call('DELETE', `/v1/keys/${child.data.id}`, account.key)).status).toBe(200);
  });

  it('rotates: the very next request with the old secret is refused, the new one works', async () => {
    const account = await gateway.createKey({ kind: 'account' });
    const child = await createChild(account.key, { kind: 'shared_child' });
    expect(await infer(child.key)).toBe(200);
    const rotated = await call('POST', `/v1/keys/${child.data.id}/rotate`, account.key);
    expect(rotated.status).toBe(200);
    const fresh = issuedKeySchema.parse(rotated.body);
    expect(fresh.data.id).toBe(child.data.id);
    expect(fresh.key).not.toBe(child.key);
    expect(await infer(child.key)).toBe(401);
    expect(await infer(fresh.key)).toBe(200);
  });

  it('revokes: the key stops at once and its unspent limit returns to the account', async () => {
    const account = await gateway.createKey({ kind: 'account', limitUsd: 4 });
    const child = await createChild(account.key, { kind: 'allocated_child', limit_usd: 1 });
    expect(await infer(child.key)).toBe(200);
    const revoked = await call('DELETE', `/v1/keys/${child.data.id}`, account.key);
    expect(revoked.status).toBe(200);
    const summary = managedKeySchema.parse(revoked.body);
    expect(summary.state).toBe('revoked');
    expect(await infer(child.key)).toBe(401);
    // It keeps what it spent; the rest is the account's again.
    const spent = toNanos(summary.limit_usd!);
    expect(spent).toBeGreaterThan(0);
    expect(toNanos((await balance(account.key)).limit_usd)).toBe(toNanos(4) - spent);
    // Listed only when asked; a revoked key cannot change; revoking again changes nothing.
    expect(
      managedKeyListSchema.parse((await call('GET', '/v1/keys', account.key)).body).data,
    ).toHaveLength(0);
    expect(
      managedKeyListSchema.parse(
        (await call('GET', '/v1/keys?include_revoked=true', account.key)).body,
      ).data,
    ).toHaveLength(1);
    const change = await call('PATCH', `/v1/keys/${child.data.id}`, account.key, { name: 'again' });
    expect(change.status).toBe(409);
    expect(error(change).type).toBe('conflict');
    expect((await call('DELETE', `/v1/keys/${child.data.id}`, account.key)).status).toBe(200);
  });

  it('audits every change: who, what, when, old and new values, never a key', async () => {
    const account = await gateway.createKey({ kind: 'account', limitUsd: 5 });
    const started = Math.floor(Date.now() / 1000);
    const child = await createChild(account.key, {
      kind: 'allocated_child',
      name: 'batch',
      limit_usd: 1,
    });
    const path = `/v1/keys/${child.data.id}`;
    await call('PATCH', path, account.key, { name: 'nightly batch', limit_usd: 2, disabled: true });
    await call('PATCH', path, account.key, { disabled: false, expires_at: 4_102_444_800 });
    const rotated = issuedKeySchema.parse((await call('POST', `${path}/rotate`, account.key)).body);
    await call('DELETE', path, account.key);

    const history = await events(account.key, child.data.id);
    expect(history.map((event) => event.action)).toEqual([
      'revoke',
      'rotate',
      'update',
      'update',
      'create',
    ]);
    for (const event of history) {
      expect(event).toMatchObject({ key_id: child.data.id, actor: account.id });
      expect(event.created_at).toBeGreaterThanOrEqual(started);
    }
    const [revoke, rotate, second, first, create] = history;
    expect(create!.changes).toMatchObject({
      kind: { old: null, new: 'allocated_child' },
      name: { old: null, new: 'batch' },
      limit_usd: { old: null, new: 1 },
    });
    expect(first!.changes).toEqual({
      name: { old: 'batch', new: 'nightly batch' },
      limit_usd: { old: 1, new: 2 },
      disabled: { old: false, new: true },
    });
    expect(second!.changes).toEqual({
      disabled: { old: true, new: false },
      expires_at: { old: null, new: 4_102_444_800 },
    });
    expect(rotate!.changes).toEqual({ key: { old: child.data.key, new: rotated.data.key } });
    expect(revoke!.changes.revoked_at).toMatchObject({ old: null });
    // The account's own side of the money, in its own history.
    const parentSide = await gateway.gateway.admin.events(account.id, { limit: 10 });
    expect(parentSide.map((event) => event.action)).toEqual([
      'return',
      'allocate',
      'allocate',
      'create',
    ]);
    expect(parentSide[0]!.changes.limit_usd).toEqual({ old: 3, new: 5 });

    // Paged, newest first.
    const pageOne = keyEventListSchema.parse(
      (await call('GET', `${path}/events?limit=2`, account.key)).body,
    );
    expect(pageOne.data.map((event) => event.action)).toEqual(['revoke', 'rotate']);
    expect(pageOne.has_more).toBe(true);
    const pageTwo = await events(
      account.key,
      child.data.id,
      `?limit=2&cursor=${pageOne.next_cursor}`,
    );
    expect(pageTwo.map((event) => event.action)).toEqual(['update', 'update']);
  });

  // Last: every answer, header and log line of this file, scanned for every key minted in it.
  it('shows a full key only in the answer that created or rotated it', () => {
    expect(minted.length).toBeGreaterThan(10);
    const logs = log.text();
    for (const key of minted) {
      const middle = key.slice(7, -4);
      const carriers = transcript.filter(
        (entry) => entry.text.includes(key) || entry.text.includes(middle),
      );
      expect(carriers.map((entry) => entry.label)).toHaveLength(1);
      expect(carriers[0]!.issuing).toBe(true);
      expect(logs).not.toContain(middle);
    }
    expect(transcript.some((entry) => entry.text.includes('v1$'))).toBe(false);
  });
});
