/**
 * Availability from real traffic: a gateway of its own serves one model from two providers in
 * order. The first points at a closed loopback port (refused: a `connection` failure, then the
 * fallback); the second is the simulated engine. After a few requests, the Endpoints page shows
 * the first failing and the second answering, from the gateway's per-minute statistics.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startGatewayProcess, type GatewayProcess } from '../testing/gateway-process';
import { expect, test } from './fixtures';
import { freePort, startExternalWorkbench, type ExternalWorkbench } from './own-processes';

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-availability-'));
const providersFile = path.join(folder, 'providers.json');
const model = 'e2e/fallback-chat';
const requestsSent = 3;

let gateway: GatewayProcess | null = null;
let workbench: ExternalWorkbench | null = null;
let workbenchUrl = '';
let key = '';

function modelEntry() {
  return {
    id: model,
    upstream_model: 'chat-standard',
    name: 'E2E: fallback chat',
    context_length: 8192,
    max_completion_tokens: 1024,
    // Free, so the requests need no balance.
    pricing: { prompt: '0', completion: '0' },
    input_modalities: ['text'],
    supported_parameters: ['max_tokens', 'stream'],
  };
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  const closedPort = await freePort();
  fs.writeFileSync(
    providersFile,
    JSON.stringify({
      include_simulated_models: false,
      providers: [
        {
          id: 'refused-upstream',
          kind: 'openai-compatible',
          base_url: `http://127.0.0.1:${closedPort}/v1`,
          api_key_env: 'E2E_REFUSED_UPSTREAM_KEY',
          // One attempt each, and no cooling down: every request counts one failure here.
          retry: { max_attempts: 1 },
          breaker: { failure_threshold: 1000 },
          models: [modelEntry()],
        },
        { id: 'simulated-backup', kind: 'simulated', models: [modelEntry()] },
      ],
    }),
  );
  gateway = await startGatewayProcess({
    environment: {
      GATEWAY_PROVIDERS: providersFile,
      E2E_REFUSED_UPSTREAM_KEY: 'not-a-real-key',
    },
  });
  key = (await gateway.createKey(['--kind', 'account', '--name', 'traffic'])).key;
  workbench = await startExternalWorkbench(gateway.baseUrl, key);
  workbenchUrl = workbench.url;
});

test.afterAll(async () => {
  await workbench?.stop();
  await gateway?.stop();
  fs.rmSync(folder, { recursive: true, force: true });
});

test('the uptime bars fill from real requests, the refused provider failing', async ({ page }) => {
  for (let index = 0; index < requestsSent; index += 1) {
    const response = await fetch(`${gateway!.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        model,
        messages: [{ role: 'user', content: `Say hello ${index}` }],
        max_tokens: 16,
      }),
    });
    // The first provider refuses; the simulated one takes over and answers.
    expect(response.status, await response.clone().text()).toBe(200);
  }

  const section = page.getByRole('region', { name: 'Provider availability' });
  const summary = section.getByRole('list', { name: `Providers of ${model}, last 30 minutes` });
  // The checks call this model, the only one: its row is open, with its bars.
  const detail = section.getByRole('list', { name: `Provider availability of ${model}` });
  const refused = detail.getByRole('listitem').filter({ hasText: 'refused-upstream' }).first();
  const backup = detail.getByRole('listitem').filter({ hasText: 'simulated-backup' }).first();
  // The gateway writes its statistics in batches every few seconds: reload until all the
  // requests are in, not only the first batch (seen under load: "0% of 1 request").
  await expect(async () => {
    await page.goto(`${workbenchUrl}/endpoints`);
    await expect(summary).toContainText('refused-upstream0%', { timeout: 2_000 });
    await expect(summary).toContainText('simulated-backup100%', { timeout: 2_000 });
    await expect(
      refused.getByRole('list', { name: 'Uptime of refused-upstream, last 24 hours' }),
    ).toContainText(`0% of ${requestsSent} requests`, { timeout: 2_000 });
    await expect(
      backup.getByRole('list', { name: 'Uptime of simulated-backup, last 24 hours' }),
    ).toContainText(`100% of ${requestsSent} requests`, { timeout: 2_000 });
  }).toPass({ timeout: 30_000 });

  await expect(refused).toContainText('Last 30 min: 0% uptime');
  await expect(backup).toContainText(/Last 30 min: 100% uptime · latency p50 \d/);
  await expect(
    backup.getByRole('list', { name: 'Uptime of simulated-backup, last 7 days' }),
  ).toContainText(`100% of ${requestsSent} requests`);
});
