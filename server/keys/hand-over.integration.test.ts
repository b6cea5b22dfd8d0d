/**
 * Handing a new child key over (`POST /api/profiles/:profile/child-keys/hand-over`), and a
 * rotated one (`POST …/child-keys/:id/rotation/hand-over`), against a fake gateway that manages
 * keys: refused without the confirmation (nothing created or changed), else the key is in that
 * one answer (no-store) and nowhere the workbench keeps anything: not a profile, not the keys
 * file, not a log line, not a later answer.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiErrorSchema,
  childKeysSchema,
  handedOverChildKeySchema,
  profilesSchema,
} from '../../contract/workbench-api';
import { KeysStore } from './keys-store';
import {
  startFakeKeyGateway,
  type FakeKey,
  type FakeKeyGateway,
} from '../test-support/fake-key-gateway';
import { postJson, rawRequest, startTestBff, type TestBff } from '../test-support/harness';

const handOverPath = '/api/profiles/team/child-keys/hand-over';

describe('handing over a new child key', () => {
  let gateway: FakeKeyGateway;
  let bff: TestBff;
  let folder: string;
  let storePath: string;
  let account: FakeKey;

  beforeAll(async () => {
    gateway = await startFakeKeyGateway();
    account = gateway.addKey({ kind: 'account', name: 'team', limitUsd: 100 });
    folder = mkdtempSync(path.join(tmpdir(), 'hand-over-'));
    storePath = path.join(folder, 'keys.json');
    writeFileSync(storePath, JSON.stringify({ team: account.secret }), { mode: 0o600 });
    bff = await startTestBff({
      gatewayBaseUrl: gateway.baseUrl,
      profiles: { team: account.secret },
      keysStore: new KeysStore({ path: storePath, origin: 'keys_file' }),
    });
  });
  afterAll(async () => {
    await bff.close();
    await gateway.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it.each([
    ['no confirmation', { kind: 'shared_child', name: 'given' }],
    ['a confirmation that is not true', { kind: 'shared_child', name: 'given', show_once: 'yes' }],
  ])('is refused with %s (400, naming show_once), and nothing is created', async (_, body) => {
    const before = gateway.keys.size;
    const response = await postJson(bff, handOverPath, body);
    expect(response.status).toBe(400);
    const error = apiErrorSchema.parse(response.json()).error;
    expect(error.field).toBe('show_once');
    expect(error.message).toContain('shown once');
    expect(gateway.keys.size).toBe(before);
  });

  it('refuses a profile name: a handed-over key has no profile', async () => {
    const response = await postJson(bff, handOverPath, {
      kind: 'shared_child',
      name: 'given',
      show_once: true,
      profile_name: 'given',
    });
    expect(response.status).toBe(400);
    expect(gateway.keys.size).toBe(1);
  });

  it('hands the key over once, no-store, and keeps no copy of it anywhere', async () => {
    const response = await postJson(bff, handOverPath, {
      kind: 'allocated_child',
      name: 'given to ci',
      limit_usd: 1.5,
      show_once: true,
    });
    expect(response.status, response.text).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    const answer = handedOverChildKeySchema.parse(response.json());
    const issued = gateway.keys.get(answer.key.id)!;
    // The key the gateway issued, made with the account key, in this answer once.
    expect(answer.secret).toBe(issued.secret);
    expect(issued.parentId).toBe(account.id);
    expect(response.text.split(issued.secret)).toHaveLength(2);
    expect(answer.key).toMatchObject({ name: 'given to ci', limit_usd: 1.5, profile: null });
    expect(answer.key.key).toMatch(/^sk-.{4}….{4}$/);

    // Not kept: not a profile, not in the keys file, not in a log line.
    const profiles = profilesSchema.parse(
      (await rawRequest(bff, { path: '/api/profiles' })).json(),
    );
    expect(profiles.profiles.map((profile) => profile.name)).toEqual(['team']);
    expect(readFileSync(storePath, 'utf8')).not.toContain(issued.secret);
    expect(JSON.parse(readFileSync(storePath, 'utf8'))).toEqual({ team: account.secret });
    await expect.poll(() => bff.logLines.some((line) => line.includes('handed over'))).toBe(true);
    const log = bff.logLines.join('');
    expect(log).toContain(answer.key.id);
    expect(log).not.toContain(issued.secret);
    expect(log).not.toContain(issued.secret.slice(3, 23));

    // Listed with the other children, masked, held by no profile.
    const list = await rawRequest(bff, { path: '/api/profiles/team/child-keys' });
    expect(list.text).not.toContain(issued.secret);
    const listed = childKeysSchema.parse(list.json()).keys.find((key) => key.id === issued.id);
    expect(listed).toMatchObject({ profile: null, key: answer.key.key });
  });

  it('works without a keys store: nothing needs keeping', async () => {
    const bare = await startTestBff({
      gatewayBaseUrl: gateway.baseUrl,
      profiles: { team: account.secret },
    });
    try {
      const response = await postJson(bare, handOverPath, {
        kind: 'shared_child',
        name: 'given without store',
        show_once: true,
      });
      expect(response.status, response.text).toBe(201);
      const answer = handedOverChildKeySchema.parse(response.json());
      expect(gateway.keys.get(answer.key.id)?.secret).toBe(answer.secret);
    } finally {
      await bare.close();
    }
  });

  describe('rotated', () => {
    const rotationPath = (id: string) => `/api/profiles/team/child-keys/${id}/rotation/hand-over`;

    it.each([
      ['no confirmation', {}],
      ['a confirmation that is not true', { show_once: 'yes' }],
    ])(
      'is refused with %s (400, naming show_once), and the old secret keeps working',
      async (_, body) => {
        const given = gateway.addKey({ kind: 'shared_child', parentId: account.id, name: 'ci' });
        const secret = given.secret;
        const response = await postJson(bff, rotationPath(given.id), body);
        expect(response.status).toBe(400);
        expect(apiErrorSchema.parse(response.json()).error.field).toBe('show_once');
        expect(gateway.keys.get(given.id)?.secret).toBe(secret);
      },
    );

    it('is refused for a key a profile holds: that profile would be left on a dead secret', async () => {
      const held = gateway.addKey({ kind: 'shared_child', parentId: account.id, name: 'held' });
      const withProfile = await startTestBff({
        gatewayBaseUrl: gateway.baseUrl,
        profiles: { team: account.secret, held: held.secret },
      });
      try {
        const response = await postJson(withProfile, rotationPath(held.id), { show_once: true });
        expect(response.status).toBe(409);
        const error = apiErrorSchema.parse(response.json()).error;
        expect(error.field).toBe('profile');
        expect(error.message).toContain('"held"');
        expect(gateway.keys.get(held.id)?.secret).toBe(held.secret);
      } finally {
        await withProfile.close();
      }
    });

    it('gives the key a new secret, hands it over once, no-store, and keeps no copy', async () => {
      const given = gateway.addKey({ kind: 'allocated_child', parentId: account.id, name: 'ci' });
      const oldSecret = given.secret;
      const response = await postJson(bff, rotationPath(given.id), { show_once: true });
      expect(response.status, response.text).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const answer = handedOverChildKeySchema.parse(response.json());
      // The same key, with the secret the gateway now knows it by, in this answer once.
      expect(answer.key).toMatchObject({ id: given.id, name: 'ci', profile: null });
      expect(answer.secret).toBe(gateway.keys.get(given.id)!.secret);
      expect(answer.secret).not.toBe(oldSecret);
      expect(response.text.split(answer.secret)).toHaveLength(2);
      expect(answer.key.key).toMatch(/^sk-.{4}….{4}$/);
      expect(gateway.requests.at(-1)).toMatchObject({
        method: 'POST',
        url: `/v1/keys/${given.id}/rotate`,
      });

      // Not kept: not a profile, not in the keys file, not in a log line, not in the list.
      const profiles = profilesSchema.parse(
        (await rawRequest(bff, { path: '/api/profiles' })).json(),
      );
      expect(profiles.profiles.map((profile) => profile.name)).toEqual(['team']);
      expect(JSON.parse(readFileSync(storePath, 'utf8'))).toEqual({ team: account.secret });
      await expect
        .poll(() => bff.logLines.some((line) => line.includes('rotated and handed over')))
        .toBe(true);
      const log = bff.logLines.join('');
      expect(log).not.toContain(answer.secret);
      expect(log).not.toContain(answer.secret.slice(3, 23));
      const list = await rawRequest(bff, { path: '/api/profiles/team/child-keys' });
      expect(list.text).not.toContain(answer.secret);
    });
  });
});
