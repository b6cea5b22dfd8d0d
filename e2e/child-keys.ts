/**
 * What the child-key end-to-end specs share: creating a child key through the Keys page,
 * choosing a profile in the `Key` picker, a request in the playground, and reading the
 * workbench's keys store (to prove a secret never reaches the page).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, type Locator, type Page } from '@playwright/test';
import { cfRayPattern } from '../contract/gateway';
import { e2eDataDir } from './environment';

/** The Keys page's child-key table of the account profile shown. */
export function childKeysTable(page: Page) {
  return page.getByRole('table', { name: 'Child keys' });
}

/** The row of the child key named `name`. */
export function childKeyRow(page: Page, name: string) {
  return childKeysTable(page)
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name, exact: true }) });
}

/**
 * Opens one of a child key's row actions: its button (named `button`) on a desktop, its item
 * (`item`) of the row's Actions menu on a phone, narrower than Tailwind's `sm` (640 px).
 */
export async function openRowAction(page: Page, name: string, button: string, item: string) {
  const row = childKeyRow(page, name);
  if ((page.viewportSize()?.width ?? 1280) < 640) {
    await row.getByRole('button', { name: `Actions for ${name}` }).click();
    await page.getByRole('menuitem', { name: item, exact: true }).click();
  } else {
    await row.getByRole('button', { name: button }).click();
  }
}

/**
 * Creates a child key of the account profile shown on the Keys page, through its dialog, and
 * returns the profile that holds its secret, as the dialog names it.
 */
export async function createChildKey(
  page: Page,
  options: { kind: 'Allocated' | 'Shared'; name: string; limitUsd?: string },
): Promise<{ profile: string; maskedKey: string }> {
  await page.getByRole('button', { name: 'Create child key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create child key' });
  await dialog.getByRole('radio', { name: options.kind }).check();
  await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill(options.name);
  if (options.limitUsd !== undefined) {
    await dialog.getByRole('textbox', { name: 'Limit (USD)' }).fill(options.limitUsd);
  }
  await dialog.getByRole('button', { name: 'Create', exact: true }).click();
  const summary = dialog.getByRole('status').filter({ hasText: 'Created' });
  await expect(summary).toContainText(
    'The full key is kept by the workbench server; it is never shown.',
  );
  const field = (label: string) => summary.locator(`dt:text-is("${label}") + dd`);
  const profile = (await field('Profile').textContent()) ?? '';
  const maskedKey = (await field('Key').textContent()) ?? '';
  expect(maskedKey).toContain('…');
  await expect(field('Secret stored in')).toContainText('workbench-keys.json');
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(childKeyRow(page, options.name)).toBeVisible();
  return { profile, maskedKey };
}

/** The full key the workbench keeps for `profile` (embedded mode's keys store). */
export function storedSecret(profile: string): string {
  const file = path.join(e2eDataDir, 'workbench-keys.json');
  const keys = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
  const key = keys[profile];
  if (!key) throw new Error(`No profile ${profile} in ${file}`);
  return key;
}

/**
 * The `Key` combobox's option for `profile`: named by the profile, then its masked key and kind
 * ("ci sk-…a1b2 · shared child").
 */
export function profileOption(page: Page, profile: string) {
  const escaped = profile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return page.getByRole('option', { name: new RegExp(`^${escaped} `) });
}

/** Chooses `profile` in the `Key` combobox of any page. */
export async function chooseProfile(page: Page, profile: string) {
  await page.getByRole('combobox', { name: 'Key' }).click();
  await profileOption(page, profile).click();
  await expect(page.getByRole('combobox', { name: 'Key' })).toContainText(profile);
}

/**
 * Sends one message in the playground (already open) and waits for the reply to end; returns
 * its trace id and what the gateway charged, as the playground shows them.
 */
export async function requestInPlayground(page: Page, turn: number, text: string) {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  const reply = page.getByRole('listitem', { name: `assistant turn ${turn}` });
  await expect(page.getByRole('button', { name: 'Stop', exact: true })).toHaveCount(0, {
    timeout: 30_000,
  });
  await expect(reply).toContainText('You said');
  const traceId = reply.getByLabel('Trace ID', { exact: true });
  await expect(traceId).toHaveText(cfRayPattern);
  const charged = reply.locator('div:has(> dt:text-is("Charged")) > dd');
  await expect(charged).toHaveText(/^\$\d/, { timeout: 15_000 });
  return { id: (await traceId.textContent()) ?? '', cost: (await charged.textContent()) ?? '' };
}

/** The Keys page of the demo account, once its child keys are listed. */
export async function openAccountKeys(page: Page) {
  await page.goto('/keys?profile=demo-account');
  await expect(childKeysTable(page)).toBeVisible();
}

/** The four steps of a rotation dialog, each with its status. */
export function rotationSteps(dialog: Locator) {
  return dialog.getByRole('list', { name: 'Rotation steps' }).getByRole('listitem');
}
