/** `serve --workers N`: N processes on one port over the shared store, with one scrape for all. */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from './gateway-process';
import { gatewayArgs } from './gateway-bundle';
import { createTestSchema, type TestSchema } from './upstreams/shared-services';
import {
  available,
  MODEL,
  bodyFor,
  eventually,
  onNewConnection,
  chatRequestsCounted,
  overTheNetwork,
} from './scale-out-kit';

describe.skipIf(!available)('serve --workers', () => {
  let schema: TestSchema;
  let gateway: GatewayProcess | undefined;

  let network: Awaited<ReturnType<typeof overTheNetwork>> | undefined;

  afterAll(async () => {
    await gateway?.stop();
    await network?.close();
    await schema?.drop();
  });

  it('runs N processes on one port over the shared store, with one scrape for all, and refuses without one', async () => {
    schema = await createTestSchema('scale_workers');
    network = await overTheNetwork(schema.url);
    gateway = await startGatewayProcess({
      environment: {
        GATEWAY_DATABASE_URL: network.url,
        GATEWAY_KEY_PEPPER: crypto.randomBytes(24).toString('base64url'),
      },
      serveArgs: ['--workers', '2'],
    });
    // The workers: children of the primary that run the gateway's bundle.
    const { stdout } = await promisify(execFile)('pgrep', [
      '-P',
      String(gateway.pid),
      '-f',
      'dist/gateway.js',
    ]);
    expect(stdout.trim().split('\n')).toHaveLength(2);
    const key = await gateway.createKey(['--kind', 'account', '--limit-usd', '1']);
    const chat = () =>
      onNewConnection(`${gateway!.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, ...bodyFor('chat_completions', 5) }),
      });
    // Each on a new connection: both workers serve some of them.
    const first = await Promise.all(Array.from({ length: 21 }, chat));
    expect(first.every((answer) => answer.status === 200)).toBe(true);

    // Whichever worker takes a scrape, it shows every worker's requests: the same total each
    // time, and all of them (neither worker served them all alone).
    const scrapeTotal = async () => {
      const scrape = await onNewConnection(`${gateway!.baseUrl}/metrics`);
      expect(scrape.status).toBe(200);
      return chatRequestsCounted(scrape.text);
    };
    // A request is counted once its socket has closed: wait for the last of them.
    await eventually(async () => ((await scrapeTotal()) === 21 ? true : undefined), 5_000);
    const totals = [];
    for (let scrape = 0; scrape < 4; scrape += 1) totals.push(await scrapeTotal());
    expect(totals).toEqual([21, 21, 21, 21]);
    // And it only grows.
    const second = await Promise.all(Array.from({ length: 10 }, chat));
    expect(second.every((answer) => answer.status === 200)).toBe(true);
    await eventually(async () => ((await scrapeTotal()) === 31 ? true : undefined), 5_000);

    // On SQLite each process would admit against its own ledger: refused, with the reason.
    const environment = { ...process.env };
    delete environment.GATEWAY_DATABASE_URL;
    const refused = await promisify(execFile)(
      process.execPath,
      gatewayArgs(['serve', '--workers', '2', '--port', '0']),
      { env: environment, timeout: 30_000 },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code?: number; stderr?: string }) => ({
        code: error.code,
        stderr: error.stderr ?? '',
      }),
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('GATEWAY_DATABASE_URL');
    // Three processes start here, and a fourth is refused: on a busy machine that alone took 20 s.
  }, 90_000);
});
