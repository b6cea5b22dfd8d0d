/**
 * Notification endpoints from the Keys page, against the real BFF and the embedded gateway (its
 * private-address switch on, for the e2e environment only) and a receiver on loopback started
 * here: an endpoint added, its secret copied once, a test event delivered and signed with that
 * secret, paused and resumed, deleted after asking. The section and its dialogs have no serious
 * axe findings, light and dark.
 */
import { signatureOf, startReceiver, type Receiver } from '../testing/webhook-receiver';
import { seriousFindings } from './axe';
import { expect, test, type Page } from './fixtures';

let receiver: Receiver;
let receiverUrl: string;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  receiver = await startReceiver();
  receiverUrl = `${receiver.url}/hooks`;
});

test.afterAll(async () => {
  await receiver.close();
});

function notifications(page: Page) {
  return page.getByRole('region', { name: 'Notifications' });
}

async function openAccountKeys(page: Page) {
  await page.goto('/keys?profile=demo-account');
  await expect(notifications(page).getByRole('button', { name: 'Add endpoint' })).toBeVisible();
}

/** Adds an endpoint for `url` with the default events; returns the secret the dialog showed. */
async function addEndpoint(page: Page, url: string): Promise<string> {
  await notifications(page).getByRole('button', { name: 'Add endpoint' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add endpoint' });
  await dialog.getByRole('textbox', { name: 'URL' }).fill(url);
  await dialog.getByRole('button', { name: 'Add endpoint' }).click();
  const shown = dialog.getByRole('region', { name: 'Signing secret' });
  await expect(shown).toContainText('You will not see this secret again');
  const secret = (await shown.getByLabel('Signing secret', { exact: true }).textContent()) ?? '';
  expect(secret).toMatch(/^whsec_\S+$/);
  return secret;
}

test('an endpoint added on the Keys page gets a signed test event, pauses, resumes and goes', async ({
  page,
}) => {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await openAccountKeys(page);
  const url = `${receiverUrl}?flow=main`;
  const secret = await addEndpoint(page, url);
  const dialog = page.getByRole('dialog', { name: 'Add endpoint' });
  await dialog.getByRole('button', { name: 'Copy the signing secret' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(dialog).toBeHidden();
  // Shown once: gone from the page, and the list's answer does not carry it.
  expect(await page.content()).not.toContain(secret);
  const list = await page.request.get('/api/profiles/demo-account/webhooks');
  expect(await list.text()).not.toContain('whsec_');

  const item = notifications(page).getByRole('listitem', { name: url });
  await expect(item).toContainText('Active');
  await item.getByRole('button', { name: 'Send test' }).click();
  await expect(item.getByRole('status')).toContainText('Delivered');
  await expect(item.getByRole('status')).toContainText('HTTP 200');
  const testRequest = receiver.received.find((request) => request.body.includes('"webhook.test"'));
  expect(testRequest).toBeDefined();
  expect(String(testRequest!.headers['webhook-signature']).split(' ')).toContain(
    signatureOf(secret, testRequest!),
  );

  await item.getByRole('button', { name: 'Deliveries' }).click();
  const deliveries = page.getByRole('dialog', { name: 'Deliveries' });
  const row = deliveries.getByRole('table', { name: 'Recent deliveries' }).getByRole('row').nth(1);
  await expect(row).toContainText('webhook.test');
  await expect(row).toContainText('Delivered');
  await deliveries.getByRole('button', { name: 'Close' }).click();

  await item.getByRole('button', { name: 'Pause' }).click();
  await expect(item).toContainText('Paused');
  await item.getByRole('button', { name: 'Resume' }).click();
  await expect(item).toContainText('Active');

  await item.getByRole('button', { name: `Delete the endpoint ${url}` }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Delete this endpoint?' });
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await expect(confirm).toBeHidden();
  await expect(item).toBeHidden();
});

test('the section and its dialogs have no serious axe findings', async ({ page }) => {
  // A delivery and five scans (ten, light and dark): past 60 s on a 2-core machine shared with another run.
  test.slow();
  await openAccountKeys(page);
  const url = `${receiverUrl}?flow=axe`;
  await notifications(page).getByRole('button', { name: 'Add endpoint' }).click();
  await expect(page.getByRole('dialog', { name: 'Add endpoint' })).toBeVisible();
  expect(await seriousFindings(page)).toEqual([]);
  await page.keyboard.press('Escape');

  await addEndpoint(page, url);
  expect(await seriousFindings(page)).toEqual([]);
  await page.getByRole('dialog').getByRole('button', { name: 'Done' }).click();

  const item = notifications(page).getByRole('listitem', { name: url });
  await item.getByRole('button', { name: 'Send test' }).click();
  await expect(item.getByRole('status')).toContainText('Delivered');
  expect(await seriousFindings(page)).toEqual([]);

  await item.getByRole('button', { name: 'Deliveries' }).click();
  await expect(page.getByRole('table', { name: 'Recent deliveries' })).toBeVisible();
  expect(await seriousFindings(page)).toEqual([]);
  await page.keyboard.press('Escape');

  await item.getByRole('button', { name: `Delete the endpoint ${url}` }).click();
  await expect(page.getByRole('alertdialog')).toBeVisible();
  expect(await seriousFindings(page)).toEqual([]);
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
  await expect(item).toBeHidden();
});
