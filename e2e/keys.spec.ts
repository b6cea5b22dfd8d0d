import { expect, test, type Page } from './fixtures';
import { chooseProfile } from './child-keys';
import { gatewayCli, keyIdOf } from './gateway-cli';

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

test.describe.configure({ mode: 'serial' });

test.describe('keys', () => {
  test('shows the demo account key active, then disabled after the command line disables it', async ({
    page,
  }) => {
    await page.goto('/keys');
    const panel = balancePanel(page, 'demo-account');
    await expect(panel.getByText('Active', { exact: true })).toBeVisible();
    await expect(panel.getByText('Remaining', { exact: true })).toBeVisible();
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
      child
        .locator('dt', { hasText: /^Limit \(parent’s\)$/ })
        .locator('xpath=following-sibling::dd[1]'),
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
    const table = page.getByRole('table', { name: 'All key profiles' });
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

test.describe('keys: the truth at once', () => {
  test('disabling the parent shows Blocked on both children, without a reload', async ({
    page,
  }) => {
    await page.goto('/keys?profile=demo-allocated-child');
    const panel = balancePanel(page, 'demo-allocated-child');
    await expect(panel.getByText('Active', { exact: true })).toBeVisible();
    const table = page.getByRole('table', { name: 'All key profiles' });
    const rowOf = (profile: string) =>
      table.getByRole('row').filter({ has: page.getByRole('button', { name: profile }) });

    const parent = keyIdOf('demo-account');
    gatewayCli('keys', 'disable', parent);
    try {
      // No Refresh, no reload: the page keeps itself current.
      await expect(panel.getByText('Blocked', { exact: true })).toBeVisible({ timeout: 8_000 });
      await expect(panel.getByText('because its parent key is disabled')).toBeVisible();
      await expect(panel.getByRole('note')).toContainText('keys enable');
      for (const child of ['demo-allocated-child', 'demo-shared-child']) {
        await expect(rowOf(child).getByText('Blocked', { exact: true })).toBeVisible({
          timeout: 8_000,
        });
        await expect(rowOf(child)).toContainText('its parent key is disabled');
      }
    } finally {
      gatewayCli('keys', 'enable', parent);
    }
    await expect(panel.getByText('Active', { exact: true })).toBeVisible({ timeout: 8_000 });
  });

  test('a key that expires shows Expired within a second', async ({ page }) => {
    await page.goto('/keys?profile=demo-allocated-child');
    const panel = balancePanel(page, 'demo-allocated-child');
    await expect(panel.getByText('Active', { exact: true })).toBeVisible();

    const id = keyIdOf('demo-allocated-child');
    const expiresAt = Math.floor(Date.now() / 1000) + 8;
    gatewayCli('keys', 'set', id, '--expires-at', String(expiresAt));
    try {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await expect(panel.getByText(/^in [\d.]+ s$/)).toBeVisible();
      await expect(panel.getByText('Active', { exact: true })).toBeVisible();
      const untilExpiry = expiresAt * 1000 - Date.now();
      expect(untilExpiry).toBeGreaterThan(0);
      await page.waitForTimeout(untilExpiry);
      await expect(panel.getByText('Expired', { exact: true })).toBeVisible({ timeout: 1_000 });
      // Then the gateway's own word arrives, with its guidance.
      await expect(panel.getByRole('note')).toContainText('expired', { timeout: 8_000 });
    } finally {
      gatewayCli('keys', 'set', id, '--expires-at', 'none');
    }
    await expect(panel.getByText('Active', { exact: true })).toBeVisible({ timeout: 8_000 });
  });

  test('the picker and a click on a table row choose a profile, in the URL; an unknown one is named', async ({
    page,
  }) => {
    await page.goto('/keys');
    await expect(balancePanel(page, 'demo-account')).toBeVisible();
    await chooseProfile(page, 'demo-shared-child');
    await expect(page).toHaveURL(/\?profile=demo-shared-child$/);

    // A click anywhere on a row, not only on its name.
    await page
      .getByRole('table', { name: 'All key profiles' })
      .getByRole('row')
      .filter({ has: page.getByRole('button', { name: 'demo-allocated-child' }) })
      .getByRole('cell')
      .first()
      .click();
    await expect(balancePanel(page, 'demo-allocated-child')).toBeVisible();
    await expect(page).toHaveURL(/\?profile=demo-allocated-child$/);

    await page.goto('/keys?profile=nope');
    await expect(page.getByText(/asks for the key profile “nope”, which is unknown/)).toBeVisible();
    await expect(page.getByRole('combobox', { name: 'Key' })).not.toHaveText(/nope/);
  });

  test('a depleted key on a :free model is not told to pick a cheaper or :free model', async ({
    page,
  }) => {
    const id = keyIdOf('demo-allocated-child');
    gatewayCli('keys', 'set', id, '--limit-usd', '0');
    try {
      await page.goto('/keys?profile=demo-allocated-child');
      const panel = balancePanel(page, 'demo-allocated-child');
      await expect(panel.getByText('Depleted', { exact: true })).toBeVisible();
      await expect(panel.getByRole('note')).toContainText('on every model');
      await page.getByRole('button', { name: 'Validate key' }).click();
      const dialog = page.getByRole('dialog');
      const model = dialog.getByRole('combobox', { name: 'Model for the check' });
      await model.fill('sim/chat-standard:free');
      await dialog.getByRole('button', { name: /Run check/ }).click();
      const result = dialog.getByRole('status').filter({ hasText: 'Not valid' });
      await expect(result).toContainText('state: Depleted');
      await expect(result).toContainText('on every model');
      await expect(result).not.toContainText(/cheaper/i);
    } finally {
      gatewayCli('keys', 'set', id, '--limit-usd', '5');
    }
  });

  test('on a phone, the State and Remaining columns stay on screen', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/keys');
    const table = page.getByRole('table', { name: 'All key profiles' });
    await expect(table.getByText('Active', { exact: true }).first()).toBeVisible();
    await table.scrollIntoViewIfNeeded();
    for (const header of ['Profile', 'State']) {
      await expect(table.getByRole('columnheader', { name: header })).toBeInViewport();
    }
    await expect(table.getByText('Active', { exact: true }).first()).toBeInViewport();
    await expect(table.getByRole('columnheader', { name: 'Expires' })).toBeHidden();
  });

  test('on a phone, the child keys fit the width: every action of a row is on screen', async ({
    page,
  }, testInfo) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/keys?profile=demo-account');
    const table = page.getByRole('table', { name: 'Child keys' });
    const row = table.getByRole('row', { name: /demo-allocated-child/ });
    // On a phone a row's actions are one menu, its target at least 44 px tall, Revoke last.
    const actions = row.getByRole('button', { name: 'Actions for demo-allocated-child' });
    await actions.scrollIntoViewIfNeeded();
    await expect(table.getByRole('columnheader', { name: 'State' })).toBeInViewport();
    await expect(row.getByText('Active', { exact: true })).toBeInViewport();
    await expect(actions).toBeInViewport({ ratio: 1 });
    expect((await actions.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await actions.click();
    const items = page.getByRole('menuitem');
    await expect(items.last()).toHaveText('Revoke');
    for (const item of await items.all()) await expect(item).toBeInViewport({ ratio: 1 });
    await page.keyboard.press('Escape');
    // Nothing scrolls sideways: not the table, not the page.
    const overflow = await table.evaluate((element) => {
      const scroller = element.parentElement!;
      return [
        scroller.scrollWidth - scroller.clientWidth,
        document.documentElement.scrollWidth - window.innerWidth,
      ];
    });
    expect(overflow).toEqual([0, 0]);
    await page.screenshot({ path: testInfo.outputPath('keys-phone-children.png') });
    await actions.click();
    await page.getByRole('menuitem', { name: 'Set limit & expiry', exact: true }).click();
    await expect(page.getByRole('dialog')).toBeVisible();
  });
});
