/**
 * The playground's Responses choice against the real BFF and the embedded gateway: the reply
 * streams through `POST /v1/responses`, shows its Trace ID, and the gateway records it in the
 * Responses form; Stop ends the gateway request early there too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type APIRequestContext } from './fixtures';
import { cfRayPattern, generationRecordSchema } from '../contract/gateway';
import { e2eDataDir, e2eGatewayPort } from './environment';

const gatewayUrl = `http://127.0.0.1:${e2eGatewayPort}`;

function demoKey(profile: string): string {
  const keys = JSON.parse(
    fs.readFileSync(path.join(e2eDataDir, 'demo-keys.json'), 'utf8'),
  ) as Record<string, string>;
  const key = keys[profile];
  if (!key) throw new Error(`No demo key ${profile} in ${e2eDataDir}/demo-keys.json`);
  return key;
}

/** The gateway's record of a request, read with the demo key (it is written as the request ends). */
async function recordOf(request: APIRequestContext, traceId: string) {
  const response = await request.get(
    `${gatewayUrl}/v1/generation?id=${encodeURIComponent(traceId)}`,
    {
      headers: { Authorization: `Bearer ${demoKey('demo-account')}` },
    },
  );
  return response.ok() ? generationRecordSchema.parse(await response.json()) : null;
}

test('sends through the Responses API and the gateway records that form', async ({
  page,
  request,
}) => {
  await page.goto('/playground?model=sim/chat-standard');
  await page.getByRole('radiogroup', { name: 'API' }).getByText('Responses').click();
  await expect(page).toHaveURL(/api=responses/);
  const chatRequest = page.waitForRequest((sent) => sent.url().endsWith('/api/chat'));
  await page.getByRole('textbox', { name: 'Message' }).fill('Hello through the Responses form');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  expect((await chatRequest).postDataJSON()).toMatchObject({ api: 'responses' });

  const reply = page.getByRole('listitem', { name: 'assistant turn 2' });
  await expect(page.getByRole('button', { name: 'Stop', exact: true })).toHaveCount(0, {
    timeout: 30_000,
  });
  await expect(reply).toContainText('You said');
  const traceId = reply.getByLabel('Trace ID', { exact: true });
  await expect(traceId).toHaveText(cfRayPattern);
  await expect(reply.getByText(/^\$\d/)).toBeVisible();

  const id = (await traceId.textContent()) ?? '';
  await expect.poll(async () => (await recordOf(request, id))?.form).toBe('responses');
});

test('Stop on a Responses reply ends the gateway request early', async ({ page, request }) => {
  await page.goto('/playground?model=sim/chat-standard&api=responses');
  await page.getByRole('spinbutton', { name: 'max_tokens' }).fill('3000');
  await page.getByRole('textbox', { name: 'Message' }).fill('Write 3000 words about gateways');
  await page.getByRole('button', { name: 'Send', exact: true }).click();

  const reply = page.getByRole('listitem', { name: 'assistant turn 2' });
  await expect(reply).toContainText('You said');
  await expect(reply.getByLabel('Trace ID', { exact: true })).toHaveText(cfRayPattern);
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await expect(reply.getByText('Stopped — partial reply')).toBeVisible();

  const id = (await reply.getByLabel('Trace ID', { exact: true }).textContent()) ?? '';
  await expect.poll(async () => (await recordOf(request, id))?.outcome).toBe('ended_early');
});
