/**
 * The embedded gateway runs as a child process of `npm start`: killing it does not take the
 * workbench with it; the workbench says so, restarts it, and carries on.
 */
import fs from 'node:fs';
import { expect, test } from './fixtures';
import { e2eGatewayPidFile } from './environment';

function gatewayPid(): number {
  return Number(fs.readFileSync(e2eGatewayPidFile, 'utf8').trim());
}

test('killing the embedded gateway leaves the workbench up; it restarts the gateway and says so', async ({
  page,
  request,
}) => {
  await page.goto('/keys');
  const panel = page.getByRole('region', { name: 'demo-account' });
  await expect(panel.getByText('Active', { exact: true })).toBeVisible();
  const banner = page.getByTestId('gateway-banner');
  await expect(banner).toBeHidden();

  const killed = gatewayPid();
  process.kill(killed, 'SIGKILL');
  await expect(banner).toBeVisible({ timeout: 2_000 });
  await expect(banner).toContainText('The embedded gateway stopped; restarting (attempt 1)…');
  await expect(banner).toContainText('signal SIGKILL');

  // The workbench itself still answers while its gateway is away.
  const health = await request.get('/api/health');
  expect(health.ok()).toBe(true);

  // Back after the first backoff; the banner goes within 2 s of the gateway answering again.
  await expect
    .poll(
      async () =>
        ((await (await request.get('/api/health')).json()) as { reachable: boolean }).reachable,
      {
        timeout: 15_000,
        intervals: [100],
      },
    )
    .toBe(true);
  await expect(banner).toBeHidden({ timeout: 2_000 });
  expect(gatewayPid()).not.toBe(killed);
  await expect(panel.getByText('Active', { exact: true })).toBeVisible({ timeout: 8_000 });
});

test('the end-to-end runner runs on the pinned Node', () => {
  const manifest = JSON.parse(fs.readFileSync('package.json', 'utf8')) as {
    dependencies: { node: string };
  };
  expect(process.version).toBe(`v${manifest.dependencies.node}`);
});
