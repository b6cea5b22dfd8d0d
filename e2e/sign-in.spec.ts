/**
 * Sign-in with WORKBENCH_ACCESS_TOKEN, against a second workbench started here with the token,
 * on a port of its own, using the e2e run's embedded gateway as its external gateway (and the
 * compiled server that the first one runs). Also: without the token, the workbench refuses to
 * listen on a non-loopback address and says why.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from './fixtures';
import { seriousFindings } from './axe';
import { e2eDataDir, e2eGatewayPort, e2eWorkbenchPort } from './environment';

/** Beside the e2e workbench's own port, so runs that move it (E2E_WORKBENCH_PORT) move this too. */
const port = e2eWorkbenchPort + 2;
const origin = `http://127.0.0.1:${port}`;
const token = randomBytes(30).toString('base64url');
const compiledStart = path.resolve('dist/start.js');

/** The environment of a workbench in front of the e2e gateway, nothing inherited that matters. */
function workbenchEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const keys = JSON.parse(
    fs.readFileSync(path.join(e2eDataDir, 'demo-keys.json'), 'utf8'),
  ) as Record<string, string>;
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GATEWAY_BASE_URL: `http://127.0.0.1:${e2eGatewayPort}`,
    GATEWAY_API_KEY: keys['demo-account']!,
    ...extra,
  };
}

let workbench: ChildProcess | null = null;
let output = '';

async function waitForAnswer(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.status > 0) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`No answer from ${url}; output:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  workbench = spawn(process.execPath, [compiledStart], {
    env: workbenchEnvironment({
      WORKBENCH_PORT: String(port),
      WORKBENCH_ACCESS_TOKEN: token,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  workbench.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  workbench.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  await waitForAnswer(`${origin}/api/session`, 30_000);
});

test.afterAll(async () => {
  if (!workbench) return;
  const exited = new Promise((resolve) => workbench!.once('exit', resolve));
  workbench.kill('SIGTERM');
  await exited;
  // Nothing the workbench wrote, from start to stop, holds the token.
  expect(output).not.toContain(token);
});

test.describe('sign-in', () => {
  test('sign-in is required when the token is set', async ({ page, request }) => {
    // No session: the API refuses, and pages go to the form, remembering where they were going.
    const refused = await request.get(`${origin}/api/profiles`);
    expect(refused.status()).toBe(401);
    expect(((await refused.json()) as { error: { type: string } }).error.type).toBe(
      'sign_in_required',
    );

    await page.goto(`${origin}/activity?days=7`);
    await expect(page).toHaveURL(
      `${origin}/sign-in?next=${encodeURIComponent('/activity?days=7')}`,
    );
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);

    const field = page.getByLabel('Access token');
    await field.fill(`${token}-not-it`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toContainText('not the workbench’s access token');
    expect(await page.context().cookies()).toEqual([]);

    await field.fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(`${origin}/activity?days=7`);
    await expect(page.getByRole('heading', { name: 'Activity', level: 1 })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Export CSV' })).toBeEnabled();

    // The session cookie: httpOnly, SameSite=Strict, expiring in 12 hours, and not the token.
    const cookies = await page.context().cookies();
    const session = cookies.find((cookie) => cookie.name === 'workbench_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', secure: false, path: '/' });
    const hoursLeft = (session!.expires * 1000 - Date.now()) / 3_600_000;
    expect(hoursLeft).toBeGreaterThan(11.9);
    expect(hoursLeft).toBeLessThanOrEqual(12);
    for (const cookie of cookies) expect(cookie.value).not.toContain(token);
    expect(await page.evaluate(() => document.cookie)).not.toContain('workbench_session');

    // Signed in, every page works; then Sign out ends the session everywhere.
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Keys' })
      .click();
    await expect(
      // GATEWAY_API_KEY is held as the profile named `default`: its balance panel.
      page.getByRole('region', { name: 'default' }).getByText('Remaining', { exact: true }),
    ).toBeVisible();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(`${origin}/sign-in`);
    await page.goto(`${origin}/keys`);
    await expect(page).toHaveURL(/\/sign-in\?next=%2Fkeys$/);
    const replayed = await request.get(`${origin}/api/profiles`, {
      headers: { cookie: `workbench_session=${session!.value}` },
    });
    expect(replayed.status()).toBe(401);
  });

  test('the sign-in page has no serious or critical axe findings', async ({ page }) => {
    await page.goto(`${origin}/sign-in`);
    await expect(page.getByLabel('Access token')).toBeVisible();
    expect(await seriousFindings(page)).toEqual([]);
    await page.getByLabel('Access token').fill('wrong-token-wrong-token-wrong-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toBeVisible();
    expect(await seriousFindings(page)).toEqual([]);
  });

  test('without the token, the workbench refuses to listen off loopback and says why', async () => {
    const refused = spawn(process.execPath, [compiledStart], {
      env: workbenchEnvironment({ WORKBENCH_HOST: '0.0.0.0', WORKBENCH_PORT: String(port + 1) }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let said = '';
    refused.stdout?.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')));
    refused.stderr?.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => refused.once('exit', resolve));
    expect(code).toBe(1);
    expect(said).toContain('WORKBENCH_ACCESS_TOKEN');
    expect(said).toContain('not a loopback address');
  });
});
