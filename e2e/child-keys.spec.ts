/**
 * Child keys managed from the Keys page, against the real BFF and the embedded gateway: a
 * shared child created there is at once a profile the playground can use, and its spend shows
 * on the parent account's Activity page; the full key never reaches the page, unless it is
 * handed over, created or rotated: then it is shown once, copied, works at the gateway, and is
 * kept nowhere. Their axe scans are in child-keys-axe.spec.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { keyStatusSchema } from '../contract/gateway';
import { e2eDataDir, e2eGatewayPort } from './environment';
import { expect, test } from './fixtures';
import {
  childKeyRow,
  chooseProfile,
  createChildKey,
  openAccountKeys,
  profileOption,
  requestInPlayground,
  storedSecret,
} from './child-keys';

test.describe.configure({ mode: 'serial' });

test.describe('child keys', () => {
  test('a shared child made on the Keys page serves the playground, and its spend shows on the account’s Activity', async ({
    page,
  }) => {
    await openAccountKeys(page);
    const name = 'e2e shared playground';
    const { profile, maskedKey } = await createChildKey(page, { kind: 'Shared', name });
    const row = childKeyRow(page, name);
    await expect(row).toContainText(maskedKey);
    await expect(row).toContainText('Shared');
    await expect(row).toContainText(profile);
    await expect(row.getByText('Active', { exact: true })).toBeVisible();
    // The full key stays with the server: not in the page, whatever it shows.
    expect(await page.content()).not.toContain(storedSecret(profile));

    // It is in the Key picker at once, and the playground uses it.
    await page.goto('/playground?model=sim/chat-standard');
    await chooseProfile(page, profile);
    await page.getByRole('spinbutton', { name: 'max_tokens' }).fill('16');
    const chat = page.waitForRequest((request) => request.url().endsWith('/api/chat'));
    const made = await requestInPlayground(page, 2, 'Hello from a shared child key');
    expect((await chat).postDataJSON()).toMatchObject({ profile });
    expect(await page.content()).not.toContain(storedSecret(profile));

    // The parent account sees the request, marked with the child, at the cost the playground
    // showed.
    await chooseProfile(page, 'demo-account');
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Activity' })
      .click();
    const requests = page.getByRole('table', { name: 'Requests' });
    const activityRow = requests.getByRole('row').filter({ hasText: made.id });
    await expect(activityRow).toHaveCount(1);
    await expect(activityRow).toContainText(`key: ${name}`);
    await expect(activityRow.getByTestId('request-cost')).toHaveText(made.cost);
  });

  test('a key handed over is shown once, copied, works at the gateway, and is kept nowhere', async ({
    page,
  }) => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await openAccountKeys(page);
    const name = 'e2e handed over';
    await page.getByRole('button', { name: 'Create child key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create child key' });
    await dialog.getByRole('radio', { name: 'Shared' }).check();
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
    await dialog.getByRole('radio', { name: 'Hand over' }).check();
    await dialog
      .getByRole('checkbox', { name: 'Show the key once; the workbench keeps no copy' })
      .check();
    const answer = page.waitForResponse((response) => response.url().endsWith('/hand-over'));
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    expect((await answer).headers()['cache-control']).toBe('no-store');

    const handed = dialog.getByRole('region', { name: 'Handed-over key' });
    const secret = (await handed.getByLabel('Full key', { exact: true }).textContent()) ?? '';
    expect(secret).toMatch(/^sk-\S{20,}$/);
    await handed.getByRole('button', { name: 'Copy the full key' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect(dialog).toBeHidden();
    expect(await page.content()).not.toContain(secret);

    // The copied key is a working child key of the account, as the gateway itself says.
    const status = await fetch(`http://127.0.0.1:${e2eGatewayPort}/v1/key`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(status.status).toBe(200);
    expect(keyStatusSchema.parse(await status.json())).toMatchObject({
      identity: 'shared_child',
      state: 'active',
      can_spend: true,
    });

    // Listed, masked, with no profile holding it; not in the keys file.
    const row = childKeyRow(page, name);
    await expect(row).toContainText('Shared');
    await expect(row).toContainText('none');
    const keysFile = path.join(e2eDataDir, 'workbench-keys.json');
    if (fs.existsSync(keysFile)) expect(fs.readFileSync(keysFile, 'utf8')).not.toContain(secret);

    // Rotated, it is handed over again: a new secret, shown once, behind the same confirmation;
    // the old one stops at the gateway, the new one works.
    await row.getByRole('button', { name: `Rotate ${name}` }).click();
    const rotate = page.getByRole('dialog', { name: `Rotate “${name}”` });
    await rotate
      .getByRole('checkbox', { name: 'Show the key once; the workbench keeps no copy' })
      .check();
    const rotated = page.waitForResponse((response) =>
      response.url().endsWith('/rotation/hand-over'),
    );
    await rotate.getByRole('button', { name: 'Rotate and hand over' }).click();
    expect((await rotated).headers()['cache-control']).toBe('no-store');
    const handedAgain = rotate.getByRole('region', { name: 'Handed-over key' });
    await expect(handedAgain).toContainText(`Rotated “${name}”. Copy its new key now.`);
    const newSecret =
      (await handedAgain.getByLabel('Full key', { exact: true }).textContent()) ?? '';
    expect(newSecret).toMatch(/^sk-\S{20,}$/);
    expect(newSecret).not.toBe(secret);
    await handedAgain.getByRole('button', { name: 'Copy the full key' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(newSecret);
    await rotate.getByRole('button', { name: 'Done' }).click();
    await expect(rotate).toBeHidden();
    expect(await page.content()).not.toContain(newSecret);
    const keyStatus = (presented: string) =>
      fetch(`http://127.0.0.1:${e2eGatewayPort}/v1/key`, {
        headers: { authorization: `Bearer ${presented}` },
      });
    expect((await keyStatus(secret)).status).toBe(401);
    expect((await keyStatus(newSecret)).status).toBe(200);
    if (fs.existsSync(keysFile)) expect(fs.readFileSync(keysFile, 'utf8')).not.toContain(newSecret);
  });

  test('a limit is set, the key disabled and enabled, its history read, and it is revoked after a confirmation naming it', async ({
    page,
  }) => {
    await openAccountKeys(page);
    const name = 'e2e allocated lifecycle';
    const { profile, maskedKey } = await createChildKey(page, {
      kind: 'Allocated',
      name,
      limitUsd: '0.50',
    });
    const row = childKeyRow(page, name);
    await expect(row).toContainText('$0.50');

    await row.getByRole('button', { name: `Set limit & expiry of ${name}` }).click();
    const limits = page.getByRole('dialog', { name: `Limit and expiry of “${name}”` });
    await limits.getByRole('textbox', { name: 'Limit (USD)' }).fill('0.75');
    await limits.getByRole('button', { name: 'Save' }).click();
    await expect(limits).toBeHidden();
    await expect(row).toContainText('$0.75');

    await row.getByRole('button', { name: `Disable ${name}` }).click();
    await page
      .getByRole('alertdialog', { name: `Disable “${name}”?` })
      .getByRole('button', { name: 'Disable' })
      .click();
    await expect(row.getByText('Disabled', { exact: true })).toBeVisible();
    await row.getByRole('button', { name: `Enable ${name}` }).click();
    await expect(row.getByText('Active', { exact: true })).toBeVisible();

    await row.getByRole('button', { name: `History of ${name}` }).click();
    const history = page.getByRole('dialog', { name: `History of “${name}”` });
    const changes = history.getByRole('list', { name: `Changes of ${name}` });
    await expect(changes).toContainText('Enabled');
    await expect(changes).toContainText('Disabled');
    await expect(changes).toContainText('Limit: $0.50 → to $0.75');
    await expect(changes).toContainText('Created');
    await history.getByRole('button', { name: 'Close' }).click();

    await row.getByRole('button', { name: `Revoke ${name}` }).click();
    const confirm = page.getByRole('alertdialog', { name: `Revoke “${name}”?` });
    await expect(confirm).toContainText(`The key “${name}” (${maskedKey}) stops working at once.`);
    await expect(confirm).toContainText(`The workbench profile “${profile}”`);
    await confirm.getByRole('button', { name: 'Revoke', exact: true }).click();
    await expect(confirm).toBeHidden();
    await expect(childKeyRow(page, name)).toHaveCount(0);
    await expect(page.getByRole('status').filter({ hasText: profile })).toBeVisible();
    // Its profile went with it.
    await page.getByRole('combobox', { name: 'Key' }).click();
    // The list is open (another profile shows), and this one is not in it.
    await expect(profileOption(page, 'demo-account')).toBeVisible();
    await expect(profileOption(page, profile)).toHaveCount(0);
    await page.keyboard.press('Escape');
  });
});
