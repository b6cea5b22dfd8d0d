/**
 * `gateway keys webhooks …` in-process over a SQLite file, and a key change made by the command
 * line reaching a receiver through the serving gateway's sender.
 */
import path from 'node:path';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { createLogger } from '../logger';
import { startGateway } from '../index';
import { startReceiver, type Receiver } from '../../testing/webhook-receiver';
import { eventually, tempFolder, testConfig } from '../../testing/gateway-support';
import { runCli } from './run';

const pepper = 'cli-webhooks-pepper-long-enough';
let folder: string;
let receiver: Receiver;

beforeAll(async () => {
  folder = tempFolder();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  fs.rmSync(folder, { recursive: true, force: true });
});

async function cli(...argv: string[]) {
  let out = '';
  let err = '';
  const status = await runCli(argv, {
    env: {
      GATEWAY_DB: path.join(folder, 'gateway.db'),
      GATEWAY_KEY_PEPPER: pepper,
      GATEWAY_WEBHOOK_ALLOW_PRIVATE: 'true',
    },
    out: (text) => (out += text),
    err: (text) => (err += text),
  });
  return { status, out, err };
}

describe('gateway keys webhooks', () => {
  it('adds, lists, tests and removes an endpoint, and refuses what it cannot do with a clear error', async () => {
    const account = JSON.parse((await cli('keys', 'create', '--kind', 'account', '--json')).out);
    const added = await cli(
      'keys',
      'webhooks',
      'add',
      '--account',
      account.id,
      '--url',
      `${receiver.url}/cli`,
      '--events',
      'key.created,key.disabled',
      '--balance-low-percent',
      '10',
      '--json',
    );
    expect(added.status, added.err).toBe(0);
    const webhook = JSON.parse(added.out);
    expect(webhook).toMatchObject({
      account_id: account.id,
      balance_low_percent: 10,
      events: ['key.created', 'key.disabled'],
    });
    expect(webhook.secret).toMatch(/^whsec_/);

    const listed = await cli('keys', 'webhooks', 'list');
    expect(listed.out).toContain(`${webhook.id}  active  account ${account.id}`);
    expect(listed.out).not.toContain(webhook.secret);

    const tested = await cli('keys', 'webhooks', 'test', webhook.id);
    expect(tested.out).toMatch(/^Delivered msg_\S+: HTTP 200 in \d+ ms\.\n$/);
    const [request] = receiver.received.filter((received) => received.path === '/cli');
    expect(
      new StandardWebhook(webhook.secret).verify(
        request!.body,
        request!.headers as Record<string, string>,
      ),
    ).toMatchObject({ type: 'webhook.test' });

    const bad = await cli(
      'keys',
      'webhooks',
      'add',
      '--account',
      account.id,
      '--url',
      `${receiver.url}/x`,
      '--events',
      'key.nothing',
    );
    expect(bad.status).toBe(1);
    expect(bad.err).toMatch(/Invalid field 'events\.0'/);
    const noAccount = await cli(
      'keys',
      'webhooks',
      'add',
      '--url',
      `${receiver.url}/x`,
      '--events',
      'key.created',
    );
    expect(noAccount.status).toBe(2);
    expect(noAccount.err).toMatch(/needs --account ID/);
    const unknown = await cli('keys', 'webhooks', 'frobnicate');
    expect(unknown.err).toMatch(/use list, add, remove or test/);

    expect((await cli('keys', 'webhooks', 'remove', webhook.id)).out).toBe(
      `Removed webhook ${webhook.id}.\n`,
    );
    expect((await cli('keys', 'webhooks', 'list')).out).toBe('No webhook endpoints.\n');
    const gone = await cli('keys', 'webhooks', 'test', webhook.id);
    expect(gone.status).toBe(1);
    expect(gone.err).toMatch(/No webhook .* belongs to this caller/);
  });

  it('raises an event for a change the command line makes, which the serving gateway sends', async () => {
    const account = JSON.parse((await cli('keys', 'create', '--kind', 'account', '--json')).out);
    const webhook = JSON.parse(
      (
        await cli(
          'keys',
          'webhooks',
          'add',
          '--account',
          account.id,
          '--url',
          `${receiver.url}/served`,
          '--events',
          'key.disabled',
          '--json',
        )
      ).out,
    );
    expect((await cli('keys', 'disable', account.id)).status).toBe(0);
    const running = await startGateway(
      testConfig({ databasePath: path.join(folder, 'gateway.db'), keyPepper: pepper }, folder),
      { logger: createLogger('silent') },
    );
    try {
      const request = await eventually(() =>
        receiver.received.find((received) => received.path === '/served'),
      );
      const event = new StandardWebhook(webhook.secret).verify(
        request.body,
        request.headers as Record<string, string>,
      );
      expect(event).toMatchObject({
        type: 'key.disabled',
        data: { key_id: account.id, changes: { disabled: { old: false, new: true } } },
      });
    } finally {
      await running.close();
    }
  });
});
