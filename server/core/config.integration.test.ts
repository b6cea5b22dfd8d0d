import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkbenchConfig, normalizeGatewayBaseUrl } from './config';
import { readKeysFile } from '../keys/keys-file';
import { buildProfiles } from '../keys/profiles';
import { fakeKey } from '../test-support/harness';

describe('loadWorkbenchConfig', () => {
  it('has the documented defaults', () => {
    expect(loadWorkbenchConfig({})).toEqual({
      host: '127.0.0.1',
      port: 5173,
      allowedHosts: [],
      keysFile: null,
      dataDirectory: path.resolve('data'),
      gatewayBaseUrl: null,
      gatewayApiKey: null,
      timeouts: {
        connectMs: 5000,
        firstByteMs: 120000,
        idleMs: 120000,
        bodyDeadlineMs: 15000,
        callDeadlineMs: 30000,
      },
      catalogTtlMs: 30000,
      oidc: null,
    });
  });

  describe("people's sign-in (WORKBENCH_OIDC_*)", () => {
    const oidc = {
      WORKBENCH_OIDC_ISSUER: 'https://id.example.com/',
      WORKBENCH_OIDC_CLIENT_ID: 'workbench',
      WORKBENCH_PUBLIC_URL: 'https://workbench.example.com/',
    };

    it('reads the issuer, the roles and the default key policy', () => {
      expect(
        loadWorkbenchConfig({
          ...oidc,
          WORKBENCH_ADMIN_EMAILS: ' Lead@Example.com, ops@example.com ',
          WORKBENCH_ADMIN_GROUPS: 'gw-admins',
          WORKBENCH_TEAM_PROFILE: 'team',
          WORKBENCH_MEMBER_KEY_LIMIT_USD: '50',
          WORKBENCH_MEMBER_KEY_ALLOWED_MODELS: 'anthropic/*, sim/chat-*',
        }).oidc,
      ).toEqual({
        issuer: 'https://id.example.com',
        clientId: 'workbench',
        clientSecret: null,
        publicUrl: 'https://workbench.example.com',
        adminEmails: ['lead@example.com', 'ops@example.com'],
        adminGroups: ['gw-admins'],
        groupsClaim: 'groups',
        teamProfile: 'team',
        defaultPolicy: {
          kind: 'allocated_child',
          limit_usd: 50,
          limit_reset: 'monthly',
          allowed_models: ['anthropic/*', 'sim/chat-*'],
        },
        policyFile: null,
      });
    });

    it.each([
      [{ WORKBENCH_OIDC_CLIENT_ID: '' }, /^WORKBENCH_OIDC_CLIENT_ID: must be set/],
      [{ WORKBENCH_PUBLIC_URL: '' }, /^WORKBENCH_PUBLIC_URL: must be set/],
      [
        { WORKBENCH_OIDC_ISSUER: 'http://id.example.com' },
        /^WORKBENCH_OIDC_ISSUER: must be an https/,
      ],
      [{ WORKBENCH_MEMBER_KEY_RESET: 'yearly' }, /^WORKBENCH_MEMBER_KEY_RESET: /],
      [
        { WORKBENCH_MEMBER_KEY_LIMIT_USD: '-1' },
        /^WORKBENCH_MEMBER_KEY_LIMIT_USD: must be a number/,
      ],
      [
        { WORKBENCH_MEMBER_KEY_KIND: 'shared_child', WORKBENCH_MEMBER_KEY_LIMIT_USD: '5' },
        /^WORKBENCH_MEMBER_KEY_LIMIT_USD: must be unset when WORKBENCH_MEMBER_KEY_KIND is shared_child/,
      ],
    ])('refuses %j, naming the variable', (change, message) => {
      expect(() => loadWorkbenchConfig({ ...oidc, ...change })).toThrow(message);
    });
  });

  it.each([
    ['https://gw.example.com/v1', 'https://gw.example.com'],
    ['https://gw.example.com/v1/', 'https://gw.example.com'],
    ['https://gw.example.com/', 'https://gw.example.com'],
    ['http://127.0.0.1:8787', 'http://127.0.0.1:8787'],
    ['https://example.com/gateway/v1', 'https://example.com/gateway'],
  ])('GATEWAY_BASE_URL %s becomes %s', (value, expected) => {
    expect(loadWorkbenchConfig({ GATEWAY_BASE_URL: value }).gatewayBaseUrl).toBe(expected);
    expect(normalizeGatewayBaseUrl(value)).toBe(expected);
  });

  it('reads every variable', () => {
    const key = fakeKey();
    const config = loadWorkbenchConfig({
      WORKBENCH_HOST: '0.0.0.0',
      WORKBENCH_PORT: '8080',
      WORKBENCH_ALLOWED_HOSTS: 'Workbench.Example.com, other.example:8443',
      WORKBENCH_KEYS_FILE: '/etc/keys.json',
      GATEWAY_DB: '/srv/gateway/gateway.db',
      GATEWAY_API_KEY: key,
      WORKBENCH_GATEWAY_CONNECT_TIMEOUT_MS: '1000',
      WORKBENCH_GATEWAY_FIRST_BYTE_TIMEOUT_MS: '2000',
      WORKBENCH_GATEWAY_IDLE_TIMEOUT_MS: '3000',
      WORKBENCH_GATEWAY_BODY_DEADLINE_MS: '4000',
      WORKBENCH_GATEWAY_CALL_DEADLINE_MS: '5000',
      WORKBENCH_CATALOG_TTL_MS: '0',
    });
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 8080,
      allowedHosts: ['workbench.example.com', 'other.example:8443'],
      keysFile: '/etc/keys.json',
      dataDirectory: '/srv/gateway',
      gatewayApiKey: key,
      timeouts: {
        connectMs: 1000,
        firstByteMs: 2000,
        idleMs: 3000,
        bodyDeadlineMs: 4000,
        callDeadlineMs: 5000,
      },
      catalogTtlMs: 0,
    });
  });

  it.each([
    ['WORKBENCH_PORT', 'abc'],
    ['WORKBENCH_PORT', '70000'],
    ['GATEWAY_BASE_URL', 'not a url'],
    ['GATEWAY_BASE_URL', 'ftp://gw.example.com'],
    ['WORKBENCH_ALLOWED_HOSTS', 'http://with-scheme.example'],
    ['WORKBENCH_GATEWAY_CONNECT_TIMEOUT_MS', '5'],
    ['GATEWAY_API_KEY', 'no-prefix'],
  ])('a bad %s (%s) throws an error naming it', (variable, value) => {
    expect(() => loadWorkbenchConfig({ [variable]: value })).toThrow(new RegExp(`^${variable}: `));
  });

  it('never quotes GATEWAY_API_KEY in its error', () => {
    const badKey = `${fakeKey()} with a space`;
    expect(() => loadWorkbenchConfig({ GATEWAY_API_KEY: badKey })).toThrow(/GATEWAY_API_KEY/);
    try {
      loadWorkbenchConfig({ GATEWAY_API_KEY: badKey });
    } catch (error) {
      expect((error as Error).message).not.toContain(badKey.slice(3, 30));
    }
  });
});

describe('key profiles', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'workbench-keys-'));
  const write = (name: string, text: string) => {
    const file = path.join(folder, name);
    writeFileSync(file, text);
    return file;
  };

  it('reads WORKBENCH_KEYS_FILE', async () => {
    const first = fakeKey();
    const second = fakeKey();
    const file = write('good.json', JSON.stringify({ team: first, 'personal key': second }));
    expect(await readKeysFile(file)).toEqual({ team: first, 'personal key': second });
  });

  it.each([
    ['missing.json', null, /does not exist/],
    ['bad.json', '{ not json', /not valid JSON/],
    ['array.json', '["x"]', /JSON object/],
    ['number.json', '{"team": 5}', /"team" must be a string beginning with sk-/],
    ['prefix.json', '{"team": "pk-123"}', /beginning with sk-/],
    ['name.json', '{"": "sk-abc"}', /profile name/],
  ])('%s gives a clear error naming the variable', async (name, text, message) => {
    const file = text === null ? path.join(folder, name) : write(name, text);
    await expect(readKeysFile(file)).rejects.toThrow(message);
    await expect(readKeysFile(file)).rejects.toThrow(/^WORKBENCH_KEYS_FILE/);
  });

  it('never quotes a key from a broken file', async () => {
    const key = fakeKey();
    const file = write('broken.json', `{"team": "${key}",}`);
    await expect(readKeysFile(file)).rejects.toThrow(/not valid JSON/);
    await readKeysFile(file).catch((error: Error) => expect(error.message).not.toContain(key));
  });

  it('merges sources: GATEWAY_API_KEY is `default`; configured profiles win over demo keys', () => {
    const [fileKey, envKey, demoKey, demoOther] = [fakeKey(), fakeKey(), fakeKey(), fakeKey()];
    expect(
      buildProfiles({
        fromKeysFile: { team: fileKey },
        gatewayApiKey: envKey,
        demoKeys: { team: demoKey, 'demo-shared': demoOther },
      }),
    ).toEqual({ team: fileKey, default: envKey, 'demo-shared': demoOther });
  });
});
