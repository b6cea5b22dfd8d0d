import fs from 'node:fs/promises';
import { expect, test } from './fixtures';

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
    // The gateway refuses the token itself: nothing of the client's goes upstream.
    await expect(geminiBearer).toContainText('the gateway itself refuses a Bearer token');
    await expect(geminiBearer).not.toContainText('passed upstream');
    await expect(page.getByText(/^Last run \d{2}:\d{2}:\d{2}$/)).toBeVisible();

    const catalog = table.getByRole('row').filter({ hasText: 'Model catalog (no key)' });
    await expect(catalog).toContainText('Available');
    await expect(catalog).toContainText('200');
    // The Responses form, embeddings and the generation record are documented and served by
    // this gateway: ordinary checks, not planned ones, and no row cites the spec.
    for (const entry of ['Responses form', 'Embeddings', 'Generation record']) {
      const row = table.getByRole('row').filter({ hasText: entry });
      await expect(row.getByText('Planned', { exact: true })).toHaveCount(0);
    }
    await expect(table).not.toContainText(/\bspec\b/i);

    // The provider endpoints route is a real, free check: the embedded gateway serves it.
    const providers = table.getByRole('row').filter({ hasText: 'Provider endpoints of a model' });
    await expect(providers).toContainText('Available');
    await expect(providers.getByRole('cell').nth(1)).toHaveText('200');
    await expect(providers).toContainText('no key');
    await expect(providers).toContainText(/1 provider: simulated\./);

    // The open model's uptime bars use the row's width, not a 170 px strip of it.
    const bars = page.getByRole('list', { name: 'Uptime of simulated, last 24 hours' }).first();
    const barsWidth = (await bars.boundingBox())!.width;
    const rowWidth = (await bars.locator('xpath=..').boundingBox())!.width;
    expect(barsWidth).toBeGreaterThan(rowWidth / 2);
  });

  test('re-runs one row and exports the results without a full key', async ({ page }) => {
    await page.goto('/endpoints');
    const table = page.getByRole('table', { name: 'Endpoint checks' });
    await expect(table).toBeVisible();
    const balanceRow = table.getByRole('row').filter({ hasText: 'Balance (Bearer)' });
    const rerun = page.waitForRequest(
      (request) => request.method() === 'POST' && request.url().endsWith('/api/checks'),
    );
    await balanceRow.getByRole('button', { name: /^(Re-run|Run) / }).click();
    expect((await rerun).postDataJSON()).toMatchObject({ only: ['balance'], include_paid: false });
    await expect(balanceRow).toContainText('Available');
    await expect(balanceRow.getByRole('button', { name: /^Re-run / })).toBeVisible();

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

  test('Run checks runs every free check, inference on the free model included; only a paid one waits', async ({
    page,
  }) => {
    await page.goto('/endpoints');
    // The embedded gateway's cheapest chat model is free; only sim/embed-small costs a little.
    const paid = page.getByRole('checkbox', {
      name: /^Include paid checks \(Embeddings: about \$/,
    });
    await expect(paid).not.toBeChecked();
    await page.getByRole('button', { name: 'Run checks' }).click();
    const table = page.getByRole('table', { name: 'Endpoint checks' });
    const chat = table.getByRole('row').filter({ hasText: 'Chat completions (streaming)' });
    await expect(chat).toContainText('Available');
    await expect(chat).toContainText('Inference · free model');
    const embeddings = table.getByRole('row').filter({ hasText: 'Embeddings' });
    await expect(embeddings).toContainText('Not run');
    // Asked for, it embeds with the catalog's embedding model, not a chat model.
    await paid.check();
    await embeddings.getByRole('button', { name: /^Run Embeddings/ }).click();
    await expect(embeddings).toContainText('Available');
  });

  test('the columns keep their places while the checks run and once they are done', async ({
    page,
  }) => {
    // A profile no other test runs the checks for: its rows go from "Not run" to results, and
    // the cf-ray, HTTP and latency cells from "—" to values.
    await page.goto('/endpoints?profile=demo-shared-child');
    const table = page.getByRole('table', { name: 'Endpoint checks' });
    await expect(table.getByText('Not run', { exact: true }).first()).toBeVisible();
    // The run is held until "running…" has been measured.
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/checks', async (route) => {
      if (route.request().method() === 'POST') await released;
      await route.fallback();
    });
    const columns = () =>
      table.getByRole('columnheader').evaluateAll((headers) =>
        headers.map((header) => {
          const box = header.getBoundingClientRect();
          return [Math.round(box.left), Math.round(box.width)];
        }),
      );
    const notRun = await columns();
    await page.getByRole('button', { name: 'Run checks' }).click();
    await expect(table.getByText('running…').first()).toBeVisible();
    const running = await columns();
    release();
    await expect(page.getByText(/^Last run /)).toBeVisible();
    await expect(table.getByText('running…')).toHaveCount(0);
    expect(running).toEqual(notRun);
    expect(await columns()).toEqual(running);
  });

  test('a profile with no run yet offers Run on each row, and Re-run only after it ran', async ({
    page,
  }) => {
    await page.goto('/endpoints?profile=demo-allocated-child');
    const table = page.getByRole('table', { name: 'Endpoint checks' });
    const balanceRow = table.getByRole('row').filter({ hasText: 'Balance (Bearer)' });
    await expect(balanceRow.getByRole('button', { name: /^Run / })).toBeVisible();
    await expect(table.getByRole('button', { name: /^Re-run / })).toHaveCount(0);
    await balanceRow.getByRole('button', { name: /^Run / }).click();
    await expect(balanceRow).toContainText('Available');
    await expect(balanceRow.getByRole('button', { name: /^Re-run / })).toBeVisible();
  });

  test('on a phone, each row keeps its endpoint, outcome and run button on screen', async ({
    page,
  }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/endpoints');
    const table = page.getByRole('table', { name: 'Endpoint checks' });
    await page.getByRole('button', { name: 'Run checks' }).click();
    const catalog = table.getByRole('row').filter({ hasText: 'Model catalog (no key)' });
    await expect(catalog).toContainText('Available');
    await expect(table.getByRole('columnheader', { name: 'Outcome' })).toBeInViewport();
    await expect(catalog.getByText('Available', { exact: true })).toBeInViewport();
    await expect(catalog.getByRole('button', { name: /^Re-run / })).toBeInViewport();
    // The folded columns' facts are still there, under the endpoint.
    await expect(catalog.getByText(/HTTP 200 · /)).toBeVisible();
    await expect(table.getByRole('columnheader', { name: 'cf-ray' })).toBeHidden();
  });
});
