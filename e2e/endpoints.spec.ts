import fs from 'node:fs/promises';
import { expect, test } from '@playwright/test';

const fullKeyPattern = /sk-[A-Za-z0-9_-]{20,}/;

test.describe('endpoints', () => {
  test('shows the plan on load, runs the free checks, and the Gemini-form Bearer check is the expected 401', async ({
    page,
  }) => {
    await page.goto('/endpoints');
    const table = page.getByRole('table', { name: 'Endpoint checks' });
    await expect(table).toBeVisible();
    const rowCount = await table.getByRole('row').count();
    expect(rowCount).toBeGreaterThan(5);

    await page.getByRole('button', { name: 'Run checks' }).click();
    const geminiBearer = table.getByRole('row').filter({ hasText: 'Bearer on Gemini form' });
    await expect(geminiBearer).toContainText('Expected error');
    await expect(geminiBearer.getByRole('cell').nth(1)).toHaveText('401');
    await expect(page.getByText(/^Last run \d{2}:\d{2}:\d{2}$/)).toBeVisible();

    const catalog = table.getByRole('row').filter({ hasText: 'Model catalog (no key)' });
    await expect(catalog).toContainText('Available');
    await expect(catalog).toContainText('200');
    await expect(table.getByRole('row').filter({ hasText: 'Planned' }).first()).toContainText(
      'Planned entry',
    );

    // The provider endpoints route is a real, free check: the embedded gateway serves it.
    const providers = table.getByRole('row').filter({ hasText: 'Provider endpoints of a model' });
    await expect(providers).toContainText('Available');
    await expect(providers.getByRole('cell').nth(1)).toHaveText('200');
    await expect(providers).toContainText('no key');
    await expect(providers).toContainText(/1 provider: simulated\./);
  });

  test('re-runs one row and exports the results without a full key', async ({ page }) => {
    await page.goto('/endpoints');
    const table = page.getByRole('table', { name: 'Endpoint checks' });
    await expect(table).toBeVisible();
    const balanceRow = table.getByRole('row').filter({ hasText: 'Balance (Bearer)' });
    const rerun = page.waitForRequest(
      (request) => request.method() === 'POST' && request.url().endsWith('/api/checks'),
    );
    await balanceRow.getByRole('button', { name: /^Re-run/ }).click();
    expect((await rerun).postDataJSON()).toMatchObject({ only: ['balance'], include_paid: false });
    await expect(balanceRow).toContainText('Available');

    await page.getByRole('button', { name: /Export results/ }).click();
    const downloading = page.waitForEvent('download');
    await page.getByRole('menuitem', { name: 'Download Markdown' }).click();
    const download = await downloading;
    const markdown = await fs.readFile(await download.path(), 'utf8');
    expect(markdown).toContain('Endpoint checks: profile `demo-account`');
    expect(markdown).toContain('Key (masked):');
    expect(markdown).toMatch(/Balance \(Bearer\) \| GET \| `\/v1\/balance`/);
    expect(markdown).not.toMatch(fullKeyPattern);

    await page.getByRole('button', { name: /Export results/ }).click();
    const downloadingJson = page.waitForEvent('download');
    await page.getByRole('menuitem', { name: 'Download JSON' }).click();
    const json = JSON.parse(await fs.readFile(await (await downloadingJson).path(), 'utf8')) as {
      results: unknown[];
      masked_key: string;
    };
    expect(json.results.length).toBeGreaterThan(5);
    expect(json.masked_key).toMatch(/^sk-.*…/);
    expect(JSON.stringify(json)).not.toMatch(fullKeyPattern);
  });

  test('paid checks need an explicit choice that shows their estimated cost', async ({ page }) => {
    await page.goto('/endpoints');
    const paid = page.getByRole('checkbox', { name: /Include paid checks/ });
    await expect(paid).not.toBeChecked();
    await expect(page.getByText(/inference calls?, /)).toBeVisible();
    const request = page.waitForRequest(
      (candidate) => candidate.method() === 'POST' && candidate.url().endsWith('/api/checks'),
    );
    await page.getByRole('button', { name: 'Run checks' }).click();
    expect((await request).postDataJSON()).toMatchObject({ include_paid: false });
  });
});
