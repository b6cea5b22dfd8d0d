/**
 * People's sign-in through a real OpenID Connect provider (oidc-provider, started here on
 * loopback) in the browser: the redirect to the provider and back, a key of one's own, each
 * person seeing only their own, and an admin seeing both. The workbench is a second one started
 * here in front of the e2e run's embedded gateway, with the demo account key as the team key.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestOidcProvider, type TestOidcProvider } from '../testing/oidc-provider-server';
import { seriousFindings } from './axe';
import { expect, test, type Browser, type Page } from './fixtures';
import { e2eDataDir, e2eGatewayPort } from './environment';
import { freePort, waitUntil } from './own-processes';

let provider: TestOidcProvider;
let workbench: ChildProcess | null = null;
let origin = '';
let folder = '';

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  provider = await startTestOidcProvider({
    accounts: {
      alice: { email: 'alice@example.com', name: 'Alice', groups: ['engineering'] },
      bob: { email: 'bob@example.com', name: 'Bob', groups: ['engineering'] },
      carol: { email: 'carol@example.com', name: 'Carol', groups: ['gw-admins'] },
    },
    redirectUris: [`${origin}/auth/oidc/callback`],
  });
  const demoKeys = JSON.parse(
    fs.readFileSync(path.join(e2eDataDir, 'demo-keys.json'), 'utf8'),
  ) as Record<string, string>;
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-people-'));
  const keysFile = path.join(folder, 'keys.json');
  fs.writeFileSync(keysFile, JSON.stringify({ team: demoKeys['demo-account'] }), { mode: 0o600 });
  workbench = spawn(process.execPath, [path.resolve('dist/start.js')], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      WORKBENCH_PORT: String(port),
      GATEWAY_BASE_URL: `http://127.0.0.1:${e2eGatewayPort}`,
      WORKBENCH_KEYS_FILE: keysFile,
      WORKBENCH_OIDC_ISSUER: provider.issuer,
      WORKBENCH_OIDC_CLIENT_ID: provider.clientId,
      WORKBENCH_OIDC_CLIENT_SECRET: provider.clientSecret,
      WORKBENCH_PUBLIC_URL: origin,
      WORKBENCH_ADMIN_GROUPS: 'gw-admins',
      WORKBENCH_TEAM_PROFILE: 'team',
      WORKBENCH_MEMBER_KEY_LIMIT_USD: '2',
      // A whole-life budget: what every gateway takes (periods are the gateway's newer field).
      WORKBENCH_MEMBER_KEY_RESET: 'none',
    },
    stdio: 'ignore',
  });
  await waitUntil(async () => (await fetch(`${origin}/api/session`)).ok, 'the workbench');
});

test.afterAll(async () => {
  if (workbench && workbench.exitCode === null) {
    const exited = new Promise((resolve) => workbench!.once('exit', resolve));
    workbench.kill('SIGTERM');
    await exited;
  }
  await provider?.close();
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
});

/** Signs `login` in, in a browser context of their own, from the Keys page. */
async function signIn(browser: Browser, login: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${origin}/keys`);
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fkeys$/);
  await page.getByRole('link', { name: 'Sign in with your identity provider' }).click();
  await page.getByLabel('Login').fill(login);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(`${origin}/keys`);
  return page;
}

/** The profiles the page's `Key` combobox offers. */
async function profilesOffered(page: Page): Promise<string[]> {
  await page.getByRole('combobox', { name: 'Key' }).click();
  const names = await page.getByRole('option').allTextContents();
  await page.keyboard.press('Escape');
  return names;
}

test('two people sign in, each sees only their own key, and an admin sees both', async ({
  browser,
}) => {
  const alice = await signIn(browser, 'alice');
  await expect(alice.getByText('Remaining', { exact: true }).first()).toBeVisible();
  const aliceProfiles = await profilesOffered(alice);
  expect(aliceProfiles).toHaveLength(1);
  expect(aliceProfiles[0]).toContain('alice at example.com');

  const bob = await signIn(browser, 'bob');
  const bobProfiles = await profilesOffered(bob);
  expect(bobProfiles).toHaveLength(1);
  expect(bobProfiles[0]).toContain('bob at example.com');

  // Alice, with her own session, is refused Bob's profile on the BFF's routes.
  const bobsProfile = encodeURIComponent('bob at example.com');
  const refused = await alice.request.get(`${origin}/api/balance?profile=${bobsProfile}`);
  expect(refused.status()).toBe(403);
  const people = await alice.request.get(`${origin}/api/people`);
  expect(people.status()).toBe(403);

  // Her People page shows her key, and nobody else.
  await alice
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'People' })
    .click();
  await expect(alice.getByRole('region', { name: 'Your key' })).toContainText('$2.00');
  await expect(alice.getByRole('table', { name: 'People' })).toHaveCount(0);
  expect(await seriousFindings(alice)).toEqual([]);

  const carol = await signIn(browser, 'carol');
  await carol
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'People' })
    .click();
  const table = carol.getByRole('table', { name: 'People' });
  await expect(table.getByRole('row', { name: /Alice/ })).toContainText('$0.00 of $2.00');
  await expect(table.getByRole('row', { name: /Bob/ })).toBeVisible();
  await expect(carol.getByRole('table', { name: 'Audit log' })).toContainText('key.create');
  expect(await seriousFindings(carol)).toEqual([]);
});
