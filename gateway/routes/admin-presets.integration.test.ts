/**
 * Presets added through the admin API are kept in the store (docs/routing.md): a gateway
 * restarted on the same SQLite file still serves them, and on PostgreSQL a preset added on one
 * instance answers on another. A preset of the providers file wins: the API may not replace it.
 */
import fs from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../config';
import { startGateway, type RunningGateway } from '../index';
import { createLogger } from '../logger';
import {
  createTestSchema,
  postgresAvailable,
  type TestSchema,
} from '../../testing/upstreams/shared-services';
import {
  bearer,
  chatBody,
  eventually,
  postJson,
  startTestGateway,
  tempFolder,
  testConfig,
  type TestGateway,
} from '../../testing/gateway-support';

const ADMIN_TOKEN = 'presets-test-operator-token-0123456789abcdef';
const admin = bearer(ADMIN_TOKEN);
const quick = { id: '@preset/quick', model: 'sim/chat-standard', parameters: { max_tokens: 20 } };
/** A providers file of only the simulated models, with one preset of its own. */
const providers: NonNullable<GatewayConfig['providers']> = {
  includeSimulatedModels: true,
  upstream: [],
  simulated: [],
  order: [],
  presets: [{ id: '@preset/from-file', model: 'sim/echo-mini' }],
};

const addPreset = (url: string, preset: Record<string, unknown>) =>
  postJson(`${url}/admin/v1/presets`, preset, { headers: admin });
const deletePreset = (url: string, slug: string) =>
  fetch(`${url}/admin/v1/presets/${slug}`, { method: 'DELETE', headers: admin });
const presetIds = async (url: string) =>
  (
    (await (await fetch(`${url}/admin/v1/presets`, { headers: admin })).json()) as {
      data: Array<{ id: string }>;
    }
  ).data.map((preset) => preset.id);
const chat = (url: string, key: string, model: string) =>
  postJson(`${url}/v1/chat/completions`, chatBody({ model }), { key });

describe('admin presets on SQLite', () => {
  const running: RunningGateway[] = [];
  const folder = tempFolder();
  const config = testConfig({ adminToken: ADMIN_TOKEN, providers }, folder);
  const start = async () => {
    const gateway = await startGateway(config, { logger: createLogger('silent') });
    running.push(gateway);
    return gateway;
  };
  afterEach(async () => {
    for (const gateway of running.splice(0)) await gateway.close();
  });
  afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('serves a preset added through the API after a restart on the same file', async () => {
    const first = await start();
    const key = (await first.gateway.admin.create({ kind: 'account', limitUsd: 1 })).key;
    expect((await addPreset(first.url, quick)).status).toBe(201);
    await first.close();
    running.splice(0);

    const second = await start();
    expect(await presetIds(second.url)).toEqual(['@preset/from-file', '@preset/quick']);
    const answer = await chat(second.url, key, '@preset/quick');
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { model: string }).model).toBe('sim/chat-standard');
  });

  it('refuses to replace or delete a preset of the providers file, with a 409', async () => {
    const gateway = await start();
    const replaced = await addPreset(gateway.url, {
      id: '@preset/from-file',
      model: 'sim/chat-standard',
    });
    expect(replaced.status).toBe(409);
    expect(await replaced.text()).toContain("'@preset/from-file' is defined in the providers file");
    const deleted = await deletePreset(gateway.url, 'from-file');
    expect(deleted.status).toBe(409);
    expect(await presetIds(gateway.url)).toContain('@preset/from-file');
  });
});

// Without a server this fails in CI and is skipped, loudly, elsewhere (testing/upstreams/shared-services).
const available = await postgresAvailable('the two-instance presets test');

describe.runIf(available)('admin presets on PostgreSQL with two instances', () => {
  let schema: TestSchema;
  const instances: TestGateway[] = [];
  afterAll(async () => {
    for (const instance of instances) await instance.stop();
    await schema?.drop();
  });

  it('serves on one instance a preset added, then deleted, on the other', async () => {
    schema = await createTestSchema('presets');
    for (let index = 0; index < 2; index += 1)
      instances.push(await startTestGateway({ databaseUrl: schema.url, adminToken: ADMIN_TOKEN }));
    const [one, two] = instances as [TestGateway, TestGateway];
    const key = (await one.createKey({ kind: 'account', limitUsd: 1 })).key;
    await two.refreshKeys();
    expect((await chat(two.url, key, '@preset/quick')).status).toBe(404);

    expect((await addPreset(one.url, quick)).status).toBe(201);
    const answer = await eventually(async () => {
      const response = await chat(two.url, key, '@preset/quick');
      return response.status === 404 ? undefined : response;
    });
    expect(answer.status).toBe(200);
    expect(await presetIds(two.url)).toEqual(['@preset/quick']);

    expect((await deletePreset(two.url, 'quick')).status).toBe(200);
    await eventually(async () => ((await presetIds(one.url)).length === 0 ? true : undefined));
    expect((await chat(one.url, key, '@preset/quick')).status).toBe(404);
  });
});
