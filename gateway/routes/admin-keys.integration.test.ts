/**
 * `/admin/v1/keys`: the operator manages account keys with `GATEWAY_ADMIN_TOKEN`. Without the
 * variable the routes do not exist (404); with it, a missing or wrong token is 401. Recharges
 * and credits raise the limit, each a ledger entry and an audit row with its note; changes made
 * with the command line are audited too (actor `cli`).
 */
import crypto from 'node:crypto';
import Database from 'better-sqlite3';
import { runCli } from '../cli/run';
import {
  balanceSchema,
  gatewayErrorBodySchema,
  issuedKeySchema,
  keyEventListSchema,
  managedKeyListSchema,
  managedKeySchema,
} from '../../contract/gateway';
import {
  chatBody,
  getWithKey,
  postJson,
  startTestGateway,
  toNanos,
  type TestGateway,
} from '../../testing/gateway-support';

/** A fresh operator token for this run (never a literal). */
const token = crypto.randomBytes(32).toString('base64url');

type Answer = { status: number; body: unknown; text: string };

async function call(
  gateway: TestGateway,
  method: string,
  route: string,
  options: { token?: string; authorization?: string; body?: unknown } = {},
): Promise<Answer> {
  const authorization =
    options.authorization ?? (options.token ? `Bearer ${options.token}` : undefined);
  const response = await fetch(`${gateway.url}${route}`, {
    method,
    headers: {
      ...(authorization ? { authorization } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text), text };
}

const error = (answer: Answer) => gatewayErrorBodySchema.parse(answer.body);

async function infer(gateway: TestGateway, key: string): Promise<number> {
  const response = await postJson(
    `${gateway.url}/v1/chat/completions`,
    chatBody({ max_tokens: 8 }),
    { key },
  );
  await response.text();
  return response.status;
}

async function balance(gateway: TestGateway, key: string) {
  return balanceSchema.parse(await (await getWithKey(`${gateway.url}/v1/balance`, key)).json());
}

describe('the operator routes without GATEWAY_ADMIN_TOKEN', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it.each([
    ['GET', '/admin/v1/keys'],
    ['POST', '/admin/v1/keys'],
    ['GET', '/admin/v1/keys/key_any'],
    ['PATCH', '/admin/v1/keys/key_any'],
    ['DELETE', '/admin/v1/keys/key_any'],
    ['POST', '/admin/v1/keys/key_any/rotate'],
    ['GET', '/admin/v1/keys/key_any/events'],
    ['POST', '/admin/v1/keys/key_any/recharge'],
    ['POST', '/admin/v1/keys/key_any/credit'],
  ])('answer 404 to %s %s, whatever the token', async (method, route) => {
    for (const options of [{}, { token }]) {
      const answer = await call(gateway, method, route, {
        ...options,
        body: method === 'POST' ? {} : undefined,
      });
      expect(answer.status).toBe(404);
      expect(error(answer).type).toBe('not_found');
    }
  });
});

describe('the operator routes with GATEWAY_ADMIN_TOKEN', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ adminToken: token, settleIntervalMs: 600_000 });
  });
  afterAll(() => gateway.stop());

  it('answer 401 without the token, with a wrong one, or with a key', async () => {
    const account = await gateway.createKey({ kind: 'account' });
    const wrongSameLength = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const authorization of [
      undefined,
      `Bearer ${wrongSameLength}`,
      `Bearer ${token}x`,
      `Bearer ${token.slice(0, 16)}`,
      `Bearer ${account.key}`,
      token,
      'Basic b3BlcmF0b3I6c2VjcmV0',
    ]) {
      for (const [method, route] of [
        ['GET', '/admin/v1/keys'],
        ['POST', `/admin/v1/keys/${account.id}/recharge`],
        ['DELETE', `/admin/v1/keys/${account.id}`],
      ]) {
        const answer = await call(gateway, method!, route!, {
          authorization,
          body: method === 'POST' ? { amount_usd: 1, note: 'x' } : undefined,
        });
        expect(answer.status, `${authorization} ${method} ${route}`).toBe(401);
        expect(error(answer)).toMatchObject({
          type: 'authentication_error',
          stage: 'authentication',
        });
        expect(answer.text).not.toContain(token.slice(0, 16));
      }
    }
    // The query form of a key is not an operator token either.
    const byQuery = await fetch(`${gateway.url}/admin/v1/keys?key=${encodeURIComponent(token)}`);
    expect(byQuery.status).toBe(401);
    // Nothing changed.
    expect(await infer(gateway, account.key)).toBe(200);
  });

  it('lists, creates, changes, rotates and revokes account keys; children are out of reach', async () => {
    const created = await call(gateway, 'POST', '/admin/v1/keys', {
      token,
      body: { name: 'team', limit_usd: 20, grace_usd: 0.5 },
    });
    expect(created.status).toBe(201);
    const issued = issuedKeySchema.parse(created.body);
    expect(issued.data).toMatchObject({
      kind: 'account',
      name: 'team',
      limit_usd: 20,
      recharge_usd: 20,
      credit_usd: 0,
    });
    expect(await infer(gateway, issued.key)).toBe(200);
    const child = await gateway.createKey({ kind: 'shared_child', parentId: issued.data.id });

    const listed = managedKeyListSchema.parse(
      (await call(gateway, 'GET', '/admin/v1/keys', { token })).body,
    ).data;
    expect(listed.map((key) => key.id)).toContain(issued.data.id);
    expect(listed.every((key) => key.kind === 'account')).toBe(true);
    expect(JSON.stringify(listed)).not.toContain(issued.key);

    for (const [method, suffix] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/rotate'],
      ['POST', '/recharge'],
    ]) {
      const answer = await call(gateway, method!, `/admin/v1/keys/${child.id}${suffix}`, {
        token,
        body:
          method === 'PATCH'
            ? { disabled: true }
            : suffix === '/recharge'
              ? { amount_usd: 1, note: 'x' }
              : undefined,
      });
      expect(answer.status, `${method} ${suffix}`).toBe(404);
    }

    const changed = await call(gateway, 'PATCH', `/admin/v1/keys/${issued.data.id}`, {
      token,
      body: { name: 'team (eu)', disabled: true },
    });
    expect(managedKeySchema.parse(changed.body)).toMatchObject({
      name: 'team (eu)',
      state: 'disabled',
    });
    expect(await infer(gateway, issued.key)).toBe(402);
    expect(await infer(gateway, child.key)).toBe(402);
    await call(gateway, 'PATCH', `/admin/v1/keys/${issued.data.id}`, {
      token,
      body: { disabled: false },
    });

    const rotated = issuedKeySchema.parse(
      (await call(gateway, 'POST', `/admin/v1/keys/${issued.data.id}/rotate`, { token })).body,
    );
    expect(await infer(gateway, issued.key)).toBe(401);
    expect(await infer(gateway, rotated.key)).toBe(200);

    const revoked = await call(gateway, 'DELETE', `/admin/v1/keys/${issued.data.id}`, { token });
    expect(managedKeySchema.parse(revoked.body).state).toBe('revoked');
    expect(await infer(gateway, rotated.key)).toBe(401);

    const history = keyEventListSchema.parse(
      (await call(gateway, 'GET', `/admin/v1/keys/${issued.data.id}/events`, { token })).body,
    ).data;
    expect(history.map((event) => [event.action, event.actor])).toEqual([
      ['revoke', 'admin'],
      ['rotate', 'admin'],
      ['update', 'admin'],
      ['update', 'admin'],
      ['create', 'admin'],
    ]);
    expect(JSON.stringify(history)).not.toContain(rotated.key);
    expect(JSON.stringify(history)).not.toContain('v1$');
  });

  it('recharges and credits with a note: the limit rises, figures keep limit = recharge + credit - allocated', async () => {
    const account = await gateway.createKey({ kind: 'account', limitUsd: 3 });
    // The account gives 1 USD of its own to a child through /v1/keys.
    const child = await fetch(`${gateway.url}/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'allocated_child', limit_usd: 1 }),
    });
    expect(child.status).toBe(201);
    expect(await infer(gateway, account.key)).toBe(200);
    await gateway.gateway.settlement.settleNow();
    const before = await balance(gateway, account.key);

    const recharged = await call(gateway, 'POST', `/admin/v1/keys/${account.id}/recharge`, {
      token,
      body: { amount_usd: 5, note: 'invoice 2026-118' },
    });
    expect(recharged.status).toBe(200);
    expect(managedKeySchema.parse(recharged.body)).toMatchObject({
      limit_usd: 7,
      recharge_usd: 8,
      allocated_usd: 1,
    });
    const credited = await call(gateway, 'POST', `/admin/v1/keys/${account.id}/credit`, {
      token,
      body: { amount_usd: 0.25, note: 'outage goodwill' },
    });
    expect(managedKeySchema.parse(credited.body)).toMatchObject({
      limit_usd: 7.25,
      credit_usd: 0.25,
    });

    const after = await balance(gateway, account.key);
    expect(after).toMatchObject({
      limit_usd: 7.25,
      recharge_usd: 8,
      credit_usd: 0.25,
      allocated_usd: 1,
    });
    expect(toNanos(after.limit_usd)).toBe(
      toNanos(after.recharge_usd) + toNanos(after.credit_usd) - toNanos(after.allocated_usd),
    );
    // remaining_usd = max(limit - consumption, 0), exactly.
    expect(toNanos(after.remaining_usd)).toBe(
      toNanos(after.limit_usd) - toNanos(after.consumption_usd),
    );
    expect(toNanos(after.remaining_usd) - toNanos(before.remaining_usd)).toBe(toNanos(5.25));

    const history = keyEventListSchema.parse(
      (await call(gateway, 'GET', `/admin/v1/keys/${account.id}/events?limit=2`, { token })).body,
    ).data;
    expect(history[0]).toMatchObject({
      action: 'credit',
      actor: 'admin',
      note: 'outage goodwill',
      changes: { limit_usd: { old: 7, new: 7.25 }, credit_usd: { old: 0, new: 0.25 } },
    });
    expect(history[1]).toMatchObject({
      action: 'recharge',
      note: 'invoice 2026-118',
      changes: { limit_usd: { old: 2, new: 7 }, recharge_usd: { old: 3, new: 8 } },
    });

    // The ledger keeps every top-up, and sums to the limit.
    const database = new Database(gateway.dbPath, { readonly: true });
    const entries = database
      .prepare(
        'SELECT entry, recharge_nanos, credit_nanos, allocated_nanos, limit_nanos, note, actor FROM key_ledger WHERE key_id = ? ORDER BY id',
      )
      .all(account.id) as Array<Record<string, unknown>>;
    database.close();
    expect(entries.map((entry) => [entry.entry, entry.actor, entry.note])).toEqual([
      ['opening', 'cli', null],
      ['allocation', expect.stringMatching(/^key_/), null],
      ['recharge', 'admin', 'invoice 2026-118'],
      ['credit', 'admin', 'outage goodwill'],
    ]);
    expect(entries.reduce((sum, entry) => sum + (entry.limit_nanos as number), 0)).toBe(
      toNanos(7.25),
    );
  });

  it.each([
    ['a zero amount', { amount_usd: 0, note: 'x' }, "'amount_usd'"],
    ['an amount as text', { amount_usd: '5', note: 'x' }, "'amount_usd'"],
    ['no note', { amount_usd: 5 }, "'note'"],
    ['an empty note', { amount_usd: 5, note: '  ' }, "'note'"],
    ['an unknown field', { amount_usd: 5, note: 'x', currency: 'EUR' }, "'currency'"],
  ])('refuses a top-up with %s, naming the field', async (_case, body, field) => {
    const account = await gateway.createKey({ kind: 'account' });
    const answer = await call(gateway, 'POST', `/admin/v1/keys/${account.id}/recharge`, {
      token,
      body,
    });
    expect(answer.status).toBe(400);
    expect(error(answer).error).toContain(field);
  });

  it('refuses an account limit below what it has spent, with the figures', async () => {
    const account = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    expect(await infer(gateway, account.key)).toBe(200);
    const answer = await call(gateway, 'PATCH', `/admin/v1/keys/${account.id}`, {
      token,
      body: { limit_usd: 0 },
    });
    expect(answer.status).toBe(400);
    expect(error(answer).error).toMatch(
      /'limit_usd' 0 is below what this key has already spent: \$[\d.]+ \(/,
    );
  });

  it('audits changes made with the command line, as actor cli', async () => {
    const account = await gateway.createKey({ kind: 'account', limitUsd: 2 });
    const environment = {
      ...Object.fromEntries(
        Object.entries(process.env).filter(([name]) => !name.startsWith('GATEWAY_')),
      ),
      GATEWAY_KEY_PEPPER: gateway.gateway.parts.config.keyPepper,
    };
    let stderr = '';
    const code = await runCli(
      ['keys', 'set', account.id, '--limit-usd', '4', '--db', gateway.dbPath],
      {
        env: environment,
        out: () => undefined,
        err: (text) => (stderr += text),
      },
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const history = keyEventListSchema.parse(
      (await call(gateway, 'GET', `/admin/v1/keys/${account.id}/events`, { token })).body,
    ).data;
    expect(history[0]).toMatchObject({
      actor: 'cli',
      action: 'update',
      changes: { limit_usd: { old: 2, new: 4 } },
    });
    expect(history.at(-1)).toMatchObject({ actor: 'cli', action: 'create' });
    // The running gateway follows within a second, as with every command-line change.
    await vi.waitFor(async () => expect((await balance(gateway, account.key)).limit_usd).toBe(4), {
      timeout: 1_000,
    });
  });
});
