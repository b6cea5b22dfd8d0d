import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';

async function seriousFindings(page: Page) {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    // Label in name (WCAG 2.5.3): axe still calls the rule experimental and leaves it off, but a
    // visible word missing from a control's name stops people who speak to their computer.
    .options({ rules: { 'label-content-name-mismatch': { enabled: true } } })
    .analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }));
}

const pages: Array<{ path: string; ready: (page: Page) => Promise<void> }> = [
  {
    path: '/catalog',
    ready: (page) => expect(page.getByRole('table', { name: 'Models' })).toBeVisible(),
  },
  {
    path: '/playground',
    ready: (page) => expect(page.getByRole('combobox', { name: 'Key' })).toBeVisible(),
  },
  {
    path: '/keys',
    ready: (page) => expect(page.getByText('Remaining', { exact: true })).toBeVisible(),
  },
  {
    path: '/endpoints',
    ready: (page) => expect(page.getByRole('table', { name: 'Endpoint checks' })).toBeVisible(),
  },
  {
    // Before any request this is the empty state; activity.spec.ts checks it with data too.
    path: '/activity',
    ready: (page) => expect(page.getByRole('button', { name: 'Export CSV' })).toBeEnabled(),
  },
];

for (const colorScheme of ['light', 'dark'] as const) {
  test.describe(`accessibility (${colorScheme})`, () => {
    test.use({ colorScheme });

    for (const { path, ready } of pages) {
      test(`${path} has no serious or critical axe findings`, async ({ page }) => {
        await page.goto(path);
        await ready(page);
        expect(await seriousFindings(page)).toEqual([]);
      });
    }

    test('the catalog detail panel has no serious or critical axe findings', async ({ page }) => {
      await page.goto('/catalog?model=sim%2Fecho-mini');
      await expect(page.getByRole('dialog')).toBeVisible();
      expect(await seriousFindings(page)).toEqual([]);
    });

    test('the endpoints page after a run has no serious or critical axe findings', async ({
      page,
    }) => {
      await page.goto('/endpoints');
      await page.getByRole('button', { name: 'Run checks' }).click();
      await expect(page.getByText(/^Last run /)).toBeVisible();
      expect(await seriousFindings(page)).toEqual([]);
    });
  });
}
