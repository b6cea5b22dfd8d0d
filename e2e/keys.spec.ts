import { execFileSync } from 'node:child_process';
import { expect, test, type Page } from '@playwright/test';
import { e2eDatabase } from './environment';

interface ListedKey {
  id: string;
  name: string | null;
}

/** The gateway's command line, on the end-to-end database. */
function gatewayCli(...args: string[]): string {
  return execFileSync('npm', ['run', '--silent', 'gateway', '--', ...args, '--db', e2eDatabase], {
    encoding: 'utf8',
  });
}

function keyIdOf(name: string): string {
  const listed = JSON.parse(gatewayCli('keys', 'list', '--json')) as { data: ListedKey[] };
  const key = listed.data.find((candidate) => candidate.name === name);
  if (!key) throw new Error(`no key named ${name} in the e2e database`);
  return key.id;
}

function balancePanel(page: Page, profile: string) {
  return page.getByRole('region', { name: profile });
}

async function remainingAmount(page: Page, profile: string): Promise<string> {
  const panel = balancePanel(page, profile);
  const figure = panel
    .locator('dt', { hasText: 'Remaining' })
    .locator('xpath=following-sibling::dd[1]');
  return (await figure.textContent()) ?? '';
}

async function chooseProfile(page: Page, profile: string) {
  await page.getByRole('combobox', { name: 'Key' }).click();
  await page.getByRole('option', { name: profile }).click();
}

test.describe.configure({ mode: 'serial' });

test.describe('keys', () => {
  test('shows the demo account key active, then disabled after the command line disables it', async ({
    page,
  }) => {
    await page.goto('/keys');
    const panel = balancePanel(page, 'demo-account');
    await expect(panel.getByText('Active', { exact: true })).toBeVisible();
    await expect(page.getByText('Remaining', { exact: true })).toBeVisible();
    expect(await remainingAmount(page, 'demo-account')).toMatch(/^\$\d[\d,]*\.\d{2}/);
    await expect(panel.getByText('Account key')).toBeVisible();

    const id = keyIdOf('demo-account');
    gatewayCli('keys', 'disable', id);
    try {
      // The gateway sees the change within a second; refresh until the page shows it.
      await expect(async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        await expect(panel.getByText('Disabled', { exact: true })).toBeVisible({ timeout: 1000 });
      }).toPass();
      await expect(panel.getByRole('note')).toContainText('402');
    } finally {
      // Other specs use this key: put it back whatever happened.
      gatewayCli('keys', 'enable', id);
    }
    await expect(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await expect(panel.getByText('Active', { exact: true })).toBeVisible({ timeout: 1000 });
    }).toPass();
  });

  test('a shared child shows its parent’s figures', async ({ page }) => {
    await page.goto('/keys');
    await expect(
      balancePanel(page, 'demo-account').getByText('Active', { exact: true }),
    ).toBeVisible();
    const parentRemaining = await remainingAmount(page, 'demo-account');
    const parentLimit = await balancePanel(page, 'demo-account')
      .locator('dt', { hasText: /^Limit$/ })
      .locator('xpath=following-sibling::dd[1]')
      .textContent();

    await chooseProfile(page, 'demo-shared-child');
    const child = balancePanel(page, 'demo-shared-child');
    await expect(child.getByText('Shared child key', { exact: true })).toBeVisible();
    await expect(child.getByText('parent’s balance', { exact: true })).toBeVisible();
    await expect(
      child.getByText(/This is a shared child key: it shows its parent’s balance/),
    ).toBeVisible();
    expect(await remainingAmount(page, 'demo-shared-child')).toBe(parentRemaining);
    await expect(
      child.locator('dt', { hasText: /^Limit$/ }).locator('xpath=following-sibling::dd[1]'),
    ).toHaveText(parentLimit ?? '');

    // The choice is remembered (by name only) across a reload.
    await page.reload();
    await expect(balancePanel(page, 'demo-shared-child')).toBeVisible();
    expect(await page.evaluate(() => window.localStorage.getItem('workbench.profile'))).toBe(
      'demo-shared-child',
    );
  });

  test('lists every profile at a glance and validates a key after showing its cost', async ({
    page,
  }) => {
    await page.goto('/keys');
    const table = page.getByRole('table');
    for (const profile of ['demo-account', 'demo-allocated-child', 'demo-shared-child']) {
      await expect(table.getByRole('button', { name: profile })).toBeVisible();
    }
    await page.getByRole('button', { name: 'Validate key' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByText('Estimated cost:')).toBeVisible();
    await dialog.getByRole('button', { name: /Run check/ }).click();
    await expect(dialog.getByRole('status').filter({ hasText: /Valid|Not valid/ })).toBeVisible();
    await expect(dialog.getByText('Valid', { exact: true })).toBeVisible();
  });
});
