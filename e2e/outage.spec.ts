/**
 * A gateway that stops and starts again while the workbench is open, seen from the browser. The
 * spec runs its own gateway process and a workbench in external mode pointed at it (the suite's
 * embedded one is left alone), so it can kill the gateway and bring it back on the same port.
 * Covered: the banner, stale key figures, errors shown at once, and the catalog (Refresh and a
 * plain reload both report the outage instead of the BFF's cached catalog).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Locator, type Page } from './fixtures';
import {
  freePort,
  startExternalWorkbench,
  waitUntil,
  type ExternalWorkbench,
} from './own-processes';

const root = path.resolve(import.meta.dirname, '..');
const gatewayEntry = path.join(root, 'dist', 'gateway.js');
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-outage-'));
const database = path.join(folder, 'gateway.db');

let gatewayPort = 0;
let gateway: ChildProcess | null = null;
let workbench: ExternalWorkbench | null = null;
let workbenchUrl = '';

const gatewayEnvironment = {
  PATH: process.env.PATH ?? '',
  GATEWAY_LOG_LEVEL: 'warn',
  GATEWAY_SETTLE_INTERVAL_MS: '200',
};

async function startGateway(): Promise<number> {
  gateway = spawn(
    process.execPath,
    [gatewayEntry, 'serve', '--host', '127.0.0.1', '--port', String(gatewayPort), '--db', database],
    { env: gatewayEnvironment, stdio: 'ignore' },
  );
  await waitUntil(
    async () => (await fetch(`http://127.0.0.1:${gatewayPort}/v1/models`)).ok,
    'the gateway',
  );
  return Date.now();
}

/** Kills the gateway outright (no graceful close), as a crash would. */
async function killGateway(): Promise<void> {
  const running = gateway;
  gateway = null;
  if (!running || running.exitCode !== null) return;
  const exited = new Promise((resolve) => running.once('exit', resolve));
  running.kill('SIGKILL');
  await exited;
}

const banner = (page: Page) => page.getByTestId('gateway-banner');

const modelsTable = (page: Page) => page.getByRole('table', { name: 'Models' });

/** The catalog page with its models shown, freshly fetched from the gateway (not the cache). */
async function openFreshCatalog(page: Page) {
  await page.goto(`${workbenchUrl}/catalog`);
  const table = modelsTable(page);
  await expect(table.getByRole('row').nth(1)).toBeVisible();
  // The BFF keeps the catalog 30 s: a fetch now, so what follows happens well inside that time.
  const fetched = page.waitForResponse(
    (response) => response.url().endsWith('/api/catalog?refresh=1') && response.ok(),
  );
  await page.getByRole('button', { name: 'Refresh' }).click();
  await fetched;
  return table;
}

/** Top edge of an element on the page, to compare what is above what. */
async function topOf(locator: Locator): Promise<number> {
  const box = await locator.boundingBox();
  if (!box) throw new Error('The element has no box: it is not shown.');
  return box.y;
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  gatewayPort = await freePort();
  await startGateway();
  const issued = JSON.parse(
    execFileSync(
      process.execPath,
      [
        gatewayEntry,
        'keys',
        'create',
        '--kind',
        'account',
        '--name',
        'outage',
        '--json',
        '--db',
        database,
      ],
      { env: gatewayEnvironment, encoding: 'utf8' },
    ),
  ) as { key: string };
  workbench = await startExternalWorkbench(`http://127.0.0.1:${gatewayPort}`, issued.key);
  workbenchUrl = workbench.url;
});

test.afterAll(async () => {
  await killGateway();
  await workbench?.stop();
  fs.rmSync(folder, { recursive: true, force: true });
});

test.describe('a gateway that stops while the workbench is open', () => {
  test('the banner shows within 2 s of the gateway dying and goes within 2 s of its return', async ({
    page,
  }) => {
    await page.goto(`${workbenchUrl}/keys`);
    await expect(page.getByRole('region', { name: 'default' })).toBeVisible();
    await expect(banner(page)).toBeHidden();

    await killGateway();
    await expect(banner(page)).toBeVisible({ timeout: 2_000 });
    await expect(banner(page)).toContainText('does not answer');
    // External mode: there is no embedded gateway to speak of.
    await expect(banner(page)).toContainText('GATEWAY_BASE_URL');
    await expect(banner(page)).not.toContainText('embedded');

    await startGateway();
    await expect(banner(page)).toBeHidden({ timeout: 2_000 });
  });

  test('during the outage, old figures are marked stale with their time', async ({ page }) => {
    await page.goto(`${workbenchUrl}/keys`);
    const panel = page.getByRole('region', { name: 'default' });
    await expect(panel.getByText('Active', { exact: true })).toBeVisible();
    const row = page.getByRole('table').getByRole('row').filter({ hasText: 'default' });
    await expect(row).toContainText('$10.00');

    await killGateway();
    try {
      await expect(row).toContainText('could not load', { timeout: 8_000 });
      await expect(row).toContainText(/\$10\.00\s*stale · \d{2}:\d{2}:\d{2}/);
      await expect(panel.getByRole('note', { name: 'Stale figures' })).toContainText(
        /these figures are from \d{2}:\d{2}:\d{2}/,
      );
    } finally {
      await startGateway();
    }
    await expect(row).not.toContainText('stale', { timeout: 8_000 });
  });

  test('Refresh during an outage shows the error at once, above the catalog already shown', async ({
    page,
  }) => {
    const table = await openFreshCatalog(page);
    await killGateway();
    try {
      const catalogCalls: Array<{ at: number; search: string }> = [];
      page.on('response', (response) => {
        const url = new URL(response.url());
        if (url.pathname === '/api/catalog')
          catalogCalls.push({ at: Date.now(), search: url.search });
      });
      await page.getByRole('button', { name: 'Refresh' }).click();
      const failure = page.getByRole('alert').filter({ hasText: 'Refreshing the catalog failed.' });
      await expect(failure).toBeVisible();
      // One answer, past the BFF's cache, shown as it came: not retried for seconds.
      expect(catalogCalls.map((call) => call.search)).toEqual(['?refresh=1']);
      expect(Date.now() - catalogCalls[0]!.at).toBeLessThan(1_000);
      await expect(failure).toContainText('connecting to the gateway');

      // The catalog already shown stays, below the error and a note that it may be out of date.
      const note = page.getByText(/Below is the catalog as fetched at .*: it may be out of date\./);
      await expect(note).toBeVisible();
      await expect(table.getByRole('row').nth(1)).toBeVisible();
      expect(await topOf(failure)).toBeLessThan(await topOf(note));
      expect(await topOf(note)).toBeLessThan(await topOf(table));

      // The failed refresh dropped the BFF's cache: a reload says the catalog cannot be loaded.
      await page.reload();
      await expect(
        page.getByRole('alert').filter({ hasText: 'Loading the catalog failed.' }),
      ).toBeVisible();
      await expect(modelsTable(page)).toHaveCount(0);
    } finally {
      await startGateway();
    }
    // Once the gateway answers again, the page asks for the catalog again by itself.
    await expect(modelsTable(page).getByRole('row').nth(1)).toBeVisible({ timeout: 5_000 });
    await expect(page.getByRole('alert').filter({ hasText: 'catalog failed' })).toHaveCount(0);
  });

  test('a reload during an outage, within the catalog cache’s 30 s and without a Refresh, reports it', async ({
    page,
  }) => {
    await openFreshCatalog(page);
    await killGateway();
    try {
      // The banner means a health check has failed, and that drops the BFF's cached catalog. How
      // soon is the first test's business; here a slow check still leaves the cache's 30 s.
      await expect(banner(page)).toBeVisible();
      await page.reload();
      await expect(banner(page)).toBeVisible();
      // Before the fix, the cached catalog came back as if nothing were wrong, the banner aside.
      const failure = page.getByRole('alert').filter({ hasText: 'Loading the catalog failed.' });
      await expect(failure).toBeVisible();
      await expect(failure).toContainText('connecting to the gateway');
      await expect(modelsTable(page)).toHaveCount(0);
    } finally {
      await startGateway();
    }
  });

  test('an error the workbench diagnosed is shown at once, not retried, with Try again', async ({
    page,
  }) => {
    await killGateway();
    try {
      const balanceCalls: number[] = [];
      page.on('response', (response) => {
        if (new URL(response.url()).pathname === '/api/balance') balanceCalls.push(Date.now());
      });
      await page.goto(`${workbenchUrl}/keys`);
      const failure = page.getByRole('alert').filter({ hasText: 'Loading the balance of' });
      await expect(failure).toBeVisible();
      const shownAt = Date.now();
      // Shown as soon as the one answer came: no retries (they took seconds) in between.
      expect(balanceCalls).toHaveLength(1);
      expect(shownAt - balanceCalls[0]!).toBeLessThan(1_000);
      await expect(failure).toContainText('connecting to the gateway');
      await expect(failure).toContainText('GATEWAY_BASE_URL');
      await expect(failure).not.toContainText('embedded');

      // Try again asks once more at once. (Clicked while the gateway is still down: once it is
      // back, the page asks again by itself, and that could remove the button before a click.)
      await failure.getByRole('button', { name: 'Try again' }).click();
      await expect.poll(() => balanceCalls.length, { timeout: 1_000 }).toBe(2);
      await expect(failure).toContainText('connecting to the gateway');

      await startGateway();
      await expect(page.getByRole('region', { name: 'default' })).toBeVisible();
      await expect(failure).toHaveCount(0);
    } finally {
      if (!gateway) await startGateway();
    }
  });
});
