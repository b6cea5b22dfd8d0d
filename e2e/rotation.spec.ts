/**
 * Rotating a child key from the Keys page, against the real BFF and the embedded gateway: the four
 * steps (create, repoint, verify, revoke), each shown done as the BFF reports it, with step 3's
 * cost estimated first; afterwards the profile holds a new secret that the playground uses, the old
 * secret no longer works, and neither secret ever reached the page.
 */
import { expect, test } from './fixtures';
import { e2eGatewayPort } from './environment';
import {
  childKeyRow,
  childKeysTable,
  chooseProfile,
  createChildKey,
  requestInPlayground,
  storedSecret,
} from './child-keys';

const gatewayUrl = `http://127.0.0.1:${e2eGatewayPort}`;

test('rotates a child key through the four steps; the playground still works with its profile', async ({
  page,
  request,
}) => {
  await page.goto('/keys?profile=demo-account');
  await expect(childKeysTable(page)).toBeVisible();
  const name = 'e2e rotation';
  const { profile, maskedKey } = await createChildKey(page, {
    kind: 'Allocated',
    name,
    limitUsd: '0.50',
  });
  const oldSecret = storedSecret(profile);

  await childKeyRow(page, name)
    .getByRole('button', { name: `Rotate ${name}` })
    .click();
  const dialog = page.getByRole('dialog', { name: `Rotate “${name}”` });
  await expect(dialog).toContainText(maskedKey);
  // The verify request's cost, before anything runs.
  await expect(dialog.getByText(/Estimated cost: \$\d/).first()).toBeVisible();
  const steps = dialog.getByRole('list', { name: 'Rotation steps' }).getByRole('listitem');
  await expect(steps).toHaveText([
    /Create the replacement.*Waiting/,
    /Update the server-side profile.*Waiting/,
    /Verify one request.*Waiting/,
    /Revoke the old secret.*Waiting/,
  ]);

  const rotation = page.waitForResponse((response) => response.url().endsWith('/rotation'));
  await dialog.getByRole('button', { name: /^Start rotation \(≈ \$/ }).click();
  expect((await rotation).headers()['content-type']).toContain('application/x-ndjson');
  await expect(dialog.getByRole('status').filter({ hasText: 'Rotation complete' })).toBeVisible({
    timeout: 30_000,
  });
  await expect(steps).toHaveText([
    /Create the replacement.*Done/,
    /Update the server-side profile.*Done/,
    /Verify one request.*Done/,
    /Revoke the old secret.*Done/,
  ]);
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();

  // The profile holds a new secret; the old one is refused; neither is in the page.
  const newSecret = storedSecret(profile);
  expect(newSecret).not.toBe(oldSecret);
  const content = await page.content();
  expect(content).not.toContain(oldSecret);
  expect(content).not.toContain(newSecret);
  const oldBalance = await request.get(`${gatewayUrl}/v1/balance`, {
    headers: { Authorization: `Bearer ${oldSecret}` },
  });
  expect(oldBalance.status()).toBe(401);
  const row = childKeyRow(page, name);
  await expect(row).toContainText(profile);
  await expect(row).not.toContainText(maskedKey);

  await page.goto('/playground?model=sim/chat-standard');
  await chooseProfile(page, profile);
  await page.getByRole('spinbutton', { name: 'max_tokens' }).fill('8');
  const chat = page.waitForRequest((outgoing) => outgoing.url().endsWith('/api/chat'));
  const made = await requestInPlayground(page, 2, 'Hello after the rotation');
  expect((await chat).postDataJSON()).toMatchObject({ profile });
  expect(made.cost).toMatch(/^\$\d/);
});
