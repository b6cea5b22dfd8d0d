import { expect, test, type Page } from './fixtures';

/**
 * The full ids of the catalog rows currently rendered (the list is virtualised). Read in one
 * snapshot: reading row by row could wait on a row that a filter has just removed.
 */
async function visibleIds(page: Page): Promise<string[]> {
  const rows = page.getByRole('table', { name: 'Models' }).getByRole('row');
  // Row 0 is the header row.
  return rows.evaluateAll((elements) =>
    elements.slice(1).map((row) => row.querySelector('.font-mono')?.textContent ?? ''),
  );
}

async function chooseOption(page: Page, combobox: string, option: string) {
  await page.getByRole('combobox', { name: combobox }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

test.describe('catalog', () => {
  test('lists every model with its full id, reachable at / too', async ({ page }) => {
    await page.goto('/');
    await expect(page).toHaveURL(/\/catalog$/);
    await expect(page.getByRole('searchbox', { name: 'Search models' })).toBeVisible();
    for (const name of ['Catalog', 'Playground', 'Keys', 'Endpoints']) {
      await expect(page.getByRole('link', { name, exact: true })).toBeVisible();
    }
    await expect(page.getByRole('combobox', { name: 'Key' })).toBeVisible();
    await expect(page.getByText('sim/echo-mini', { exact: true })).toBeVisible();
    expect((await visibleIds(page)).length).toBeGreaterThan(3);
  });

  test('search changes the visible rows and the URL', async ({ page }) => {
    await page.goto('/catalog');
    await expect(page.getByText('sim/echo-mini', { exact: true })).toBeVisible();
    const before = await visibleIds(page);
    // The list is virtualized: how many rows it renders depends on the window, so the counts
    // compared are the table's own (aria-rowcount, the header row included).
    const table = page.getByRole('table', { name: 'Models' });
    const rowCount = async () => Number(await table.getAttribute('aria-rowcount'));
    const all = await rowCount();

    await page.getByRole('searchbox', { name: 'Search models' }).fill('vision');
    await expect(page).toHaveURL(/[?&]q=vision/);
    await expect.poll(() => visibleIds(page)).not.toEqual(before);
    expect((await visibleIds(page)).length).toBeGreaterThan(0);
    expect(await rowCount()).toBeGreaterThan(1);
    expect(await rowCount()).toBeLessThan(all);
    await expect(page.getByText('sim/echo-mini', { exact: true })).toHaveCount(0);
  });

  test('the variant filter and sorting change the rows and the URL, and the URL restores them', async ({
    page,
  }) => {
    await page.goto('/catalog');
    await expect(page.getByText('sim/echo-mini', { exact: true })).toBeVisible();

    await chooseOption(page, 'Variant', ':free');
    await expect(page).toHaveURL(/[?&]variant=free/);
    await expect
      .poll(async () => (await visibleIds(page)).every((id) => id.endsWith(':free')))
      .toBe(true);
    expect((await visibleIds(page)).length).toBeGreaterThan(0);

    await chooseOption(page, 'Variant', 'Any variant');
    await chooseOption(page, 'Sort by', 'Prompt price');
    await page.getByRole('button', { name: /^Asc\b/ }).click();
    await expect(page).toHaveURL(/sort=prompt/);
    await expect(page).toHaveURL(/dir=desc/);
    // The rows follow the URL a render later: taken once the dearest model ($15) leads.
    await expect.poll(async () => (await visibleIds(page))[0]).toBe('sim/reasoner-large');
    const descending = await visibleIds(page);

    // A bookmarked URL brings back the same view.
    const url = page.url();
    await page.goto(url);
    await expect(page.getByRole('combobox', { name: 'Sort by' })).toContainText('Prompt price');
    await expect.poll(() => visibleIds(page)).toEqual(descending);
  });

  test('a bookmarked filter shows only matching models', async ({ page }) => {
    await page.goto('/catalog?variant=batch');
    await expect(page.getByRole('combobox', { name: 'Variant' })).toContainText(':batch');
    await expect.poll(async () => (await visibleIds(page)).length).toBeGreaterThan(0);
    for (const id of await visibleIds(page)) expect(id).toMatch(/:batch$/);
  });

  test('the detail panel shows the raw entry, a curl call with a placeholder key and a playground link', async ({
    page,
  }) => {
    await page.goto('/catalog');
    await page.getByRole('button', { name: 'Details of Sim: Echo Mini' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toBeVisible();
    await expect(page).toHaveURL(/model=sim%2Fecho-mini/);
    await expect(dialog.getByRole('heading', { name: 'Raw JSON' })).toBeVisible();
    await expect(dialog.getByText('"top_provider"', { exact: false })).toBeVisible();
    await expect(dialog.getByText(/Authorization: Bearer \$GATEWAY_API_KEY/)).toBeVisible();
    await expect(dialog.getByRole('link', { name: 'Try in playground' })).toHaveAttribute(
      'href',
      '/playground?model=sim%2Fecho-mini',
    );
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await expect(page).not.toHaveURL(/model=/);
  });

  test('the detail panel lists the providers serving the model, each with its status', async ({
    page,
  }) => {
    await page.goto('/catalog');
    // The table names the provider too (from the tablet width up).
    const row = page.getByRole('row').filter({ hasText: 'sim/echo-mini' });
    await expect(row).toContainText('via simulated');

    await page.getByRole('button', { name: 'Details of Sim: Echo Mini' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByRole('heading', { name: 'Providers (1)' })).toBeVisible();
    const providers = dialog.getByRole('list', { name: /Providers/ }).getByRole('listitem');
    await expect(providers).toHaveCount(1);
    await expect(providers.first()).toContainText('simulated');
    await expect(providers.first()).toContainText('Healthy');
    await expect(providers.first()).toContainText('$0.10 prompt · $0.40 completion');
  });
});

test.describe('catalog keyboard', () => {
  test('"/" focuses the search and arrow keys move between rows', async ({ page }) => {
    await page.goto('/catalog');
    await expect(page.getByText('sim/echo-mini', { exact: true })).toBeVisible();
    await page.locator('body').press('/');
    await expect(page.getByRole('searchbox', { name: 'Search models' })).toBeFocused();

    const rows = page.getByRole('table', { name: 'Models' }).getByRole('row');
    await rows.nth(1).getByRole('button').first().focus();
    await page.keyboard.press('ArrowDown');
    await expect(rows.nth(2).getByRole('button').first()).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('dialog')).toBeVisible();
  });
});

test.describe('catalog: what a new user trips over', () => {
  test('Refresh fetches past the workbench’s cache', async ({ page }) => {
    await page.goto('/catalog');
    await expect(page.getByText('sim/echo-mini', { exact: true })).toBeVisible();
    const first = await (await page.request.get('/api/catalog')).json();
    const refreshed = page.waitForResponse((response) => response.url().includes('/api/catalog?'));
    await page.getByRole('button', { name: 'Refresh' }).click();
    const response = await refreshed;
    expect(new URL(response.url()).searchParams.get('refresh')).toBe('1');
    // A new catalog from the gateway, not the copy the workbench keeps for 30 s.
    expect((await response.json()).fetched_at).toBeGreaterThan(first.fetched_at);
  });

  test('Back undoes a filter, one step per change', async ({ page }) => {
    await page.goto('/catalog');
    await expect(page.getByText('sim/echo-mini', { exact: true })).toBeVisible();
    await chooseOption(page, 'Variant', ':free');
    await expect(page).toHaveURL(/[?&]variant=free/);
    await page.getByRole('searchbox', { name: 'Search models' }).fill('chat');
    await expect(page).toHaveURL(/[?&]q=chat/);

    await page.goBack();
    await expect(page).not.toHaveURL(/q=chat/);
    await expect(page).toHaveURL(/variant=free/);
    await expect(page.getByRole('searchbox', { name: 'Search models' })).toHaveValue('');
    await page.goBack();
    await expect(page).not.toHaveURL(/variant=/);
    await expect(page.getByRole('combobox', { name: 'Variant' })).toContainText('Any variant');
  });

  test('Esc closes the detail panel and gives the focus back to its row', async ({ page }) => {
    await page.goto('/catalog');
    const opener = page.getByRole('button', { name: 'Details of Sim: Echo Mini' });
    await opener.click();
    await expect(page.getByRole('dialog')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect(opener).toBeFocused();
  });

  test('prices: "1,5" is 1.5, "/" stays in the field, and From above To is explained', async ({
    page,
  }) => {
    await page.goto('/catalog?sort=prompt');
    await expect(page.getByText('sim/echo-mini', { exact: true })).toBeVisible();
    await page.getByRole('button', { name: /^Price/ }).click();
    const from = page.getByLabel('From', { exact: true });
    const to = page.getByLabel('To', { exact: true });

    // Typed at a person's pace and faster: every key lands, "/" included.
    await from.pressSequentially('1/2');
    await expect(from).toHaveValue('1/2');
    await expect(from).toBeFocused();
    await expect(page.getByText(/“1\/2” is not an amount/)).toBeVisible();
    // Cleared just as its write reaches the URL: the field must not take its own write back.
    await expect(page).toHaveURL(/min=1%2F2/);

    await from.fill('');
    await from.pressSequentially('1,5');
    await expect(page).toHaveURL(/min=1%2C5/);
    // 1.5 per million, not 15: Chat Standard ($1) is out, Vision Pro ($3) in, Reasoner ($15) in.
    // Polled as one: the rows follow the typed value a render later, and "1" alone keeps Vision Pro.
    await expect
      .poll(async () => {
        const ids = await visibleIds(page);
        return ['sim/chat-standard', 'sim/vision-pro', 'sim/reasoner-large'].map((id) =>
          ids.includes(id),
        );
      })
      .toEqual([false, true, true]);

    await from.fill('20');
    await to.fill('5');
    await expect(
      page.getByRole('alert').filter({ hasText: 'From ($20) is above To ($5)' }),
    ).toBeVisible();
    await page.getByRole('button', { name: 'Swap From and To' }).click();
    await expect(from).toHaveValue('5');
    await expect(to).toHaveValue('20');
    await expect.poll(() => visibleIds(page)).toEqual(['sim/reasoner-large']);
  });

  test('a link with unknown filter values shows every model, and says what it ignored', async ({
    page,
  }) => {
    await page.goto('/catalog?in=foo&variant=nope');
    await expect(page.getByText(/Ignored from the link/)).toContainText('in=foo');
    await expect(page.getByText(/Ignored from the link/)).toContainText('variant=nope');
    await expect.poll(async () => (await visibleIds(page)).length).toBeGreaterThan(3);
    await expect(page.getByRole('button', { name: /Clear filters/ })).toHaveCount(0);
    await expect(page.getByRole('combobox', { name: 'Variant' })).toContainText('Any variant');
  });
});
