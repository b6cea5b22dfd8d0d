/**
 * Webhook deliveries survive a SIGKILL of the gateway: one that failed its first try and waits
 * for a retry, and one a key change wrote to the outbox while the gateway was down, are both
 * sent by the next process on the same database.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from './webhook-receiver';
import { eventually } from './gateway-support';
import { startGatewayProcess, type GatewayProcess } from './gateway-process';

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-survival-'));
const dbPath = path.join(folder, 'gateway.db');
const started: GatewayProcess[] = [];
let receiver: Receiver | undefined;

afterAll(async () => {
  await Promise.all(started.map((gateway) => gateway.stop()));
  await receiver?.close();
  fs.rmSync(folder, { recursive: true, force: true });
});

const environment = {
  GATEWAY_KEY_PEPPER: 'survival-test-pepper-long-enough',
  GATEWAY_WEBHOOK_ALLOW_PRIVATE: 'true',
  // The retry waits a few seconds: long enough to kill the gateway before it comes.
  GATEWAY_WEBHOOK_RETRY_BASE_MS: '3000',
};

describe('webhook deliveries and a SIGKILL', () => {
  it('are sent after the restart: the retry with its webhook-id, and what was written meanwhile', async () => {
    receiver = await startReceiver();
    const first = await startGatewayProcess({ dbPath, environment });
    started.push(first);
    const account = await first.createKey(['--kind', 'account', '--limit-usd', '1']);
    const headers = { authorization: `Bearer ${account.key}`, 'content-type': 'application/json' };
    const webhook = (await fetch(`${first.baseUrl}/v1/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `${receiver.url}/survive`, events: ['key.disabled'] }),
    }).then((response) => response.json())) as { id: string; secret: string };

    receiver.answers.push({ status: 503 });
    const tried = (await fetch(`${first.baseUrl}/v1/webhooks/${webhook.id}/test`, {
      method: 'POST',
      headers,
    }).then((response) => response.json())) as { id: string; status: string; attempts: number };
    expect(tried).toMatchObject({ status: 'pending', attempts: 1 });
    await first.kill('SIGKILL');

    // Written while no gateway runs: the command line's change raises its event into the outbox.
    expect((await first.cli(['keys', 'disable', account.id])).code).toBe(0);
    const database = new Database(dbPath, { readonly: true });
    try {
      const pending = database
        .prepare(
          "SELECT event_type FROM webhook_deliveries WHERE status = 'pending' ORDER BY created_ms",
        )
        .all();
      expect(pending).toEqual([{ event_type: 'webhook.test' }, { event_type: 'key.disabled' }]);
    } finally {
      database.close();
    }
    expect(receiver.received).toHaveLength(1);

    const second = await startGatewayProcess({ dbPath, environment });
    started.push(second);
    const verifier = new StandardWebhook(webhook.secret);
    const delivered = await eventually(() => {
      const events = receiver!.received.slice(1).map((request) => ({
        id: request.headers['webhook-id'],
        body: verifier.verify(request.body, request.headers as Record<string, string>) as {
          type: string;
        },
      }));
      return events.length >= 2 ? events : undefined;
    }, 15_000);
    expect(delivered.map((event) => event.body.type).sort()).toEqual([
      'key.disabled',
      'webhook.test',
    ]);
    expect(delivered.find((event) => event.body.type === 'webhook.test')!.id).toBe(tried.id);
    expect(receiver.received[0]!.headers['webhook-id']).toBe(tried.id);
  });
});
