import { expect, test, type Page } from './fixtures';
import { seriousFindings } from './axe';

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
    // The child keys arrive after the balance, and with them the Create button turns enabled.
    ready: async (page) => {
      await expect(
        page.getByRole('region', { name: 'demo-account' }).getByText('Remaining', { exact: true }),
      ).toBeVisible();
      await expect(page.getByRole('button', { name: 'Create child key' })).toBeEnabled();
    },
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

    for (const panel of ['Price', 'Parameters']) {
      test(`the catalog's ${panel} filter panel has no serious or critical axe findings`, async ({
        page,
      }) => {
        await page.goto('/catalog');
        await expect(page.getByRole('table', { name: 'Models' })).toBeVisible();
        await page.getByRole('button', { name: new RegExp(`^${panel}`) }).click();
        await expect(page.getByRole('dialog')).toBeVisible();
        expect(await seriousFindings(page)).toEqual([]);
      });
    }

    test("the playground's model picker, open with an option highlighted, has no serious or critical axe findings", async ({
      page,
    }) => {
      await page.goto('/playground');
      const picker = page.getByRole('combobox', { name: 'Model', exact: true });
      await expect(picker).toBeEnabled();
      await picker.click();
      await picker.press('ArrowDown');
      // The highlighted option has its own background: its price line is measured over it.
      await expect(picker).toHaveAttribute('aria-activedescendant', /.+/);
      await expect(page.getByRole('listbox', { name: 'Model options' })).toBeVisible();
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

    test('the endpoints page with its Export menu open has no serious or critical axe findings', async ({
      page,
    }) => {
      await page.goto('/endpoints');
      await expect(page.getByRole('table', { name: 'Endpoint checks' })).toBeVisible();
      await page.getByRole('button', { name: /^Export results/ }).click();
      await expect(page.getByRole('menu')).toBeVisible();
      expect(await seriousFindings(page)).toEqual([]);
    });
  });
}
