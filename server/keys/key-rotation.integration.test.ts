/**
 * Rotation in its four steps (create, repoint, verify, revoke), against a fake gateway that can
 * fail any step: after every outcome the profile is on a key that works (checked with the gateway),
 * the keys file agrees with it, the NDJSON lines say what happened, and no full key is in any
 * answer or log.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  apiErrorSchema,
  rotationDoneLineSchema,
  rotationEstimateSchema,
  rotationLineSchema,
  rotationStepLineSchema,
  revokedChildKeySchema,
  type RotationDoneLine,
  type RotationStepLine,
} from '../../contract/workbench-api';
import { KeysStore, KeysStoreError } from './keys-store';
import {
  startFakeKeyGateway,
  type FakeKey,
  type FakeKeyGateway,
} from '../test-support/fake-key-gateway';
import { postJson, rawRequest, startTestBff, type TestBff } from '../test-support/harness';

const send = (bff: TestBff, method: string, route: string, body: unknown = {}) =>
  rawRequest(bff, { method, path: route, body: JSON.stringify(body) });

/** A keys store whose next writes fail, as a full disk or a read-only file would. */
class FlakyStore extends KeysStore {
  failWrites: number[] = [];
  private writes = 0;

  protected override async write(text: string): Promise<void> {
    this.writes += 1;
    if (this.failWrites.includes(this.writes)) {
      throw new KeysStoreError(`${this.location.path} could not be written (ENOSPC).`);
    }
    return super.write(text);
  }

  /** Makes the `n`th write from now fail (1 is the next one). */
  failWrite(n: number): void {
    this.failWrites.push(this.writes + n);
  }
}

interface RotationAnswer {
  status: number;
  contentType: string | undefined;
  steps: RotationStepLine[];
  done: RotationDoneLine;
  text: string;
}

async function rotate(bff: TestBff, account: string, id: string, body: unknown) {
  const response = await postJson(bff, `/api/profiles/${account}/child-keys/${id}/rotation`, body);
  const lines = response.text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => rotationLineSchema.parse(JSON.parse(line)));
  const steps = lines
    .filter((line) => 'step' in line)
    .map((line) => rotationStepLineSchema.parse(line));
  const last = lines.at(-1);
  return {
    status: response.status,
    contentType: response.headers['content-type'],
    steps,
    done: rotationDoneLineSchema.parse(last),
    text: `${JSON.stringify(response.headers)}\n${response.text}`,
  } satisfies RotationAnswer;
}

/** `n.status` for each step line, in order: `1 running`, `1 done`, … */
const trail = (answer: RotationAnswer) => answer.steps.map((line) => `${line.step} ${line.status}`);

describe('rotating a child key in four steps', () => {
  let gateway: FakeKeyGateway;
  let bff: TestBff;
  let store: FlakyStore;
  let storePath: string;
  let account: FakeKey;
  /** The key the profile `ci` should be on. */
  let current: FakeKey;
  const texts: string[] = [];
  const allSecrets = () => [...gateway.keys.values()].map((key) => key.secret);
  const fileProfiles = () => JSON.parse(readFileSync(storePath, 'utf8')) as Record<string, string>;
  /** The key the profile `ci` uses now, as the gateway's chat route sees it. */
  const keyInUse = async (profile = 'ci') => {
    gateway.requests.length = 0;
    const chat = await postJson(bff, '/api/chat', {
      profile,
      request: { model: 'sim/echo', messages: [{ role: 'user', content: 'hi' }] },
    });
    texts.push(chat.text);
    expect(chat.status, chat.text).toBe(200);
    const secret = gateway.requests.at(-1)?.headers.authorization?.replace('Bearer ', '');
    return [...gateway.keys.values()].find((key) => key.secret === secret)!;
  };
  /** Checks the profile is on a live key, the file agrees, and returns that key. */
  const expectOnLiveKey = async () => {
    const key = await keyInUse();
    expect(key.revokedAt).toBeNull();
    expect(fileProfiles().ci).toBe(key.secret);
    // The other profile holding the key is on the same one, in memory and in the file.
    expect((await keyInUse('ci copy')).id).toBe(key.id);
    expect(fileProfiles()['ci copy'] ?? key.secret).toBe(key.secret);
    return key;
  };
  const liveChildren = () =>
    [...gateway.keys.values()].filter((key) => key.parentId === account.id && !key.revokedAt);

  beforeAll(async () => {
    gateway = await startFakeKeyGateway();
    account = gateway.addKey({ kind: 'account', name: 'team', limitUsd: 100 });
    current = gateway.addKey({
      kind: 'allocated_child',
      parentId: account.id,
      name: 'ci',
      limitUsd: 5,
      graceUsd: 0.25,
      consumptionUsd: 1.5,
      expiresAt: 4_102_444_800,
    });
    storePath = path.join(mkdtempSync(path.join(tmpdir(), 'rotation-')), 'keys.json');
    writeFileSync(storePath, JSON.stringify({ team: account.secret, ci: current.secret }), {
      mode: 0o644,
    });
    store = new FlakyStore({ path: storePath, origin: 'keys_file' });
    bff = await startTestBff({
      gatewayBaseUrl: gateway.baseUrl,
      // A second profile holding the same key (the demo key, say) moves with it.
      profiles: { team: account.secret, ci: current.secret, 'ci copy': current.secret },
      keysStore: store,
    });
  });
  afterAll(async () => {
    await bff.close();
    await gateway.close();
    rmSync(path.dirname(storePath), { recursive: true, force: true });
  });
  beforeEach(() => {
    gateway.failNext.create = undefined;
    gateway.failNext.revoke = undefined;
    gateway.failNext.revokeId = undefined;
    gateway.failNext.verify = undefined;
    store.failWrites = [];
    gateway.requests.length = 0;
  });
  afterEach(async () => {
    // Whatever happened, the profile is on a live key, and no stray replacement is left alive.
    expect((await expectOnLiveKey()).id).toBe(current.id);
    expect(liveChildren().filter((key) => key.name === 'ci')).toEqual([current]);
  });

  it('shows the verify request’s cost first: the cheapest catalog model, max_tokens 1', async () => {
    const response = await rawRequest(bff, {
      path: `/api/profiles/team/child-keys/${current.id}/rotation/estimate`,
    });
    expect(response.status).toBe(200);
    expect(rotationEstimateSchema.parse(response.json())).toEqual({
      model: 'sim/echo:free',
      max_tokens: 1,
      estimated_cost_usd: 0,
    });
    const priced = rotationEstimateSchema.parse(
      (
        await rawRequest(bff, {
          path: `/api/profiles/team/child-keys/${current.id}/rotation/estimate?model=sim%2Fecho`,
        })
      ).json(),
    );
    // 15 prompt tokens (estimated) at 0.000001 and 1 completion token at 0.000002.
    expect(priced.estimated_cost_usd).toBeCloseTo(0.000017, 9);
    const unknown = await rawRequest(bff, {
      path: `/api/profiles/team/child-keys/${current.id}/rotation/estimate?model=nope`,
    });
    expect(unknown.status).toBe(400);
    expect(apiErrorSchema.parse(unknown.json()).error.field).toBe('model');
  });

  it('a failure at step 1 (create) changes nothing', async () => {
    gateway.failNext.create = {
      status: 400,
      error: "'limit_usd' needs $3.50 from the account key, which has $1.00 left to give.",
    };
    const before = fileProfiles();
    const answer = await rotate(bff, 'team', current.id, { profile: 'ci' });
    texts.push(answer.text);
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/^application\/x-ndjson/);
    expect(trail(answer)).toEqual(['1 running', '1 failed']);
    expect(answer.steps[1]!.detail).toContain('needs $3.50 from the account key');
    expect(answer.done).toMatchObject({
      ok: false,
      failed_step: 1,
      new_key: null,
      profile_key: { id: current.id },
      old_key: { id: current.id, revoked: false },
    });
    expect(answer.done.state).toContain('Nothing changed');
    expect(fileProfiles()).toEqual(before);
    expect((await expectOnLiveKey()).id).toBe(current.id);
  });

  it('a failure at step 2 (keys file) keeps the old key and revokes the replacement', async () => {
    store.failWrite(1);
    const before = fileProfiles();
    const answer = await rotate(bff, 'team', current.id, { profile: 'ci' });
    texts.push(answer.text);
    expect(trail(answer)).toEqual(['1 running', '1 done', '2 running', '2 failed']);
    expect(answer.steps[3]!.detail).toContain('ENOSPC');
    const replacement = gateway.keys.get(answer.done.new_key!.id)!;
    expect(replacement.revokedAt).not.toBeNull();
    expect(answer.done).toMatchObject({
      ok: false,
      failed_step: 2,
      profile_key: { id: current.id },
      new_key: { revoked: true },
    });
    expect(answer.done.advice).toContain(`Make ${storePath} writable`);
    expect(fileProfiles()).toEqual(before);
    expect((await expectOnLiveKey()).id).toBe(current.id);
  });

  it('a failure at step 3 (verify) puts the profile back on the old key and revokes the replacement', async () => {
    gateway.failNext.verify = {
      status: 402,
      error: 'The key is disabled.',
      type: 'key_disabled',
    };
    const answer = await rotate(bff, 'team', current.id, { profile: 'ci' });
    texts.push(answer.text);
    expect(trail(answer)).toEqual([
      '1 running',
      '1 done',
      '2 running',
      '2 done',
      '3 running',
      '3 failed',
    ]);
    expect(answer.steps[5]!.detail).toBe('HTTP 402: The key is disabled.');
    expect(answer.done).toMatchObject({
      ok: false,
      failed_step: 3,
      profile_key: { id: current.id },
      old_key: { revoked: false },
      new_key: { revoked: true },
    });
    expect(answer.done.state).toContain('back on the old key');
    expect(gateway.keys.get(answer.done.new_key!.id)!.revokedAt).not.toBeNull();
    // The verify request went out with the replacement, not the old key.
    const verify = gateway.requests.find((request) => request.url === '/v1/chat/completions');
    expect(verify?.headers.authorization).not.toBe(`Bearer ${current.secret}`);
    expect(JSON.parse(verify!.body)).toMatchObject({ model: 'sim/echo:free', max_tokens: 1 });
    expect((await expectOnLiveKey()).id).toBe(current.id);
  });

  it('a failure at step 3 whose file cannot be put back keeps the replacement alive, so the file never names a dead key', async () => {
    gateway.failNext.verify = { status: 503, error: 'No provider answered.', type: 'unavailable' };
    store.failWrite(2);
    const answer = await rotate(bff, 'team', current.id, { profile: 'ci' });
    texts.push(answer.text);
    expect(answer.done).toMatchObject({
      ok: false,
      failed_step: 3,
      profile_key: { id: current.id },
      new_key: { revoked: false },
    });
    const replacement = gateway.keys.get(answer.done.new_key!.id)!;
    expect(replacement.revokedAt).toBeNull();
    // The running workbench uses the old key; the file still names the live replacement.
    expect((await keyInUse()).id).toBe(current.id);
    expect(fileProfiles().ci).toBe(replacement.secret);
    expect(answer.done.advice).toContain(`revoke the replacement ${replacement.id}`);
    // As the advice says: once the file is writable, put it right, then revoke the replacement.
    await store.putAll({ ci: current.secret, 'ci copy': current.secret });
    const revoked = await send(bff, 'DELETE', `/api/profiles/team/child-keys/${replacement.id}`);
    expect(revoked.status).toBe(200);
    expect(replacement.revokedAt).not.toBeNull();
    expect((await expectOnLiveKey()).id).toBe(current.id);
  });

  it('a failure at step 4 (revoke) leaves the profile on the new, verified key and names the old one', async () => {
    gateway.failNext.revokeId = current.id;
    const answer = await rotate(bff, 'team', current.id, { profile: 'ci' });
    texts.push(answer.text);
    expect(trail(answer)).toEqual([
      '1 running',
      '1 done',
      '2 running',
      '2 done',
      '3 running',
      '3 done',
      '4 running',
      '4 failed',
    ]);
    const replacement = gateway.keys.get(answer.done.new_key!.id)!;
    expect(answer.done).toMatchObject({
      ok: false,
      failed_step: 4,
      profile_key: { id: replacement.id },
      old_key: { id: current.id, revoked: false },
      new_key: { revoked: false },
    });
    expect(answer.done.state).toContain(`The old key ${current.id}`);
    expect(answer.done.state).toContain('still works and must be revoked');
    expect(answer.done.advice).toContain(`keys revoke ${current.id}`);
    expect(current.revokedAt).toBeNull();
    expect((await expectOnLiveKey()).id).toBe(replacement.id);
    // As the advice says: revoke the old key (no profile holds it any more).
    gateway.failNext.revokeId = undefined;
    const revoked = revokedChildKeySchema.parse(
      (await send(bff, 'DELETE', `/api/profiles/team/child-keys/${current.id}`)).json(),
    );
    expect(revoked.removed_profiles).toEqual([]);
    current = replacement;
    expect((await expectOnLiveKey()).id).toBe(current.id);
  });

  it('all four steps: a replacement with the old key’s remaining, the profile on it, the old key revoked; it outlives a restart', async () => {
    current.consumptionUsd = 1.5;
    const answer = await rotate(bff, 'team', current.id, { profile: 'ci' });
    texts.push(answer.text);
    expect(trail(answer)).toEqual([
      '1 running',
      '1 done',
      '2 running',
      '2 done',
      '3 running',
      '3 done',
      '4 running',
      '4 done',
    ]);
    expect(answer.done).toMatchObject({ ok: true, failed_step: null });
    const replacement = gateway.keys.get(answer.done.new_key!.id)!;
    expect(replacement).toMatchObject({
      kind: 'allocated_child',
      parentId: account.id,
      name: 'ci',
      limitUsd: current.limitUsd - 1.5,
      graceUsd: 0.25,
      expiresAt: 4_102_444_800,
      revokedAt: null,
    });
    expect(current.revokedAt).not.toBeNull();
    expect(answer.done.profile_key.id).toBe(replacement.id);
    expect(answer.done.old_key).toEqual({ id: current.id, revoked: true });
    expect(answer.steps[5]).toMatchObject({ cf_ray: expect.any(String), cost_usd: 0.000012 });
    // The file holds the new key, owner-only; the running workbench uses it.
    expect(statSync(storePath).mode & 0o777).toBe(0o600);
    expect((await expectOnLiveKey()).id).toBe(replacement.id);
    expect(bff.logLines.join('')).toContain('child key rotation');

    const restarted = await startTestBff({
      gatewayBaseUrl: gateway.baseUrl,
      profiles: {},
      keysStore: new KeysStore({ path: storePath, origin: 'keys_file' }),
    });
    try {
      gateway.requests.length = 0;
      await postJson(restarted, '/api/chat', {
        profile: 'ci',
        request: { model: 'sim/echo', messages: [{ role: 'user', content: 'hi' }] },
      });
      expect(gateway.requests.at(-1)?.headers.authorization).toBe(`Bearer ${replacement.secret}`);
      texts.push(...restarted.logLines);
    } finally {
      await restarted.close();
    }
    current = replacement;
  });

  it('refuses before step 1: a profile that does not hold the key, a key that cannot work, no keys store', async () => {
    const live = current;
    const other = gateway.addKey({ kind: 'shared_child', parentId: account.id, name: 'other' });
    const expired = gateway.addKey({
      kind: 'shared_child',
      parentId: account.id,
      name: 'old',
      expiresAt: 1_000,
    });
    const refusals: Array<[string, unknown, number, string | undefined]> = [
      [other.id, { profile: 'team' }, 409, 'profile'],
      [live.id, { profile: 'nobody' }, 404, 'profile'],
      [live.id, {}, 400, 'profile'],
      [live.id, { profile: 'ci', model: 'nope' }, 400, 'model'],
      [expired.id, { profile: 'ci' }, 409, undefined],
    ];
    for (const [id, body, status, field] of refusals) {
      gateway.requests.length = 0;
      const response = await postJson(bff, `/api/profiles/team/child-keys/${id}/rotation`, body);
      texts.push(response.text);
      expect(response.status, JSON.stringify(body)).toBe(status);
      const error = apiErrorSchema.parse(response.json()).error;
      expect(error.field).toBe(field);
      expect(gateway.requests.filter((request) => request.method === 'POST')).toHaveLength(0);
    }
    const expiredAnswer = await postJson(
      bff,
      `/api/profiles/team/child-keys/${expired.id}/rotation`,
      { profile: 'ci' },
    );
    expect(apiErrorSchema.parse(expiredAnswer.json()).error.message).toContain('extend its expiry');

    const storeless = await startTestBff({
      gatewayBaseUrl: gateway.baseUrl,
      profiles: { team: account.secret, ci: live.secret },
    });
    try {
      const response = await postJson(
        storeless,
        `/api/profiles/team/child-keys/${live.id}/rotation`,
        { profile: 'ci' },
      );
      expect(response.status).toBe(409);
      expect(apiErrorSchema.parse(response.json()).error.advice).toContain('WORKBENCH_KEYS_FILE');
    } finally {
      await storeless.close();
    }
    const fromEnvironment = await startTestBff({
      gatewayBaseUrl: gateway.baseUrl,
      profiles: { team: account.secret, default: live.secret },
      keysStore: store,
      environmentProfiles: ['default'],
    });
    try {
      const response = await postJson(
        fromEnvironment,
        `/api/profiles/team/child-keys/${live.id}/rotation`,
        { profile: 'default' },
      );
      expect(response.status).toBe(409);
      expect(apiErrorSchema.parse(response.json()).error.message).toContain('GATEWAY_API_KEY');
    } finally {
      await fromEnvironment.close();
    }
  });

  it('no full key in any line, answer or log line', () => {
    expect(texts.length).toBeGreaterThan(8);
    for (const text of [...texts, ...bff.logLines]) {
      for (const secret of allSecrets()) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain(secret.slice(3, 23));
      }
    }
  });
});
