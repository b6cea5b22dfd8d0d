import { expect, test, type Locator, type Page } from './fixtures';
import { axeViewports, seriousFindings } from './axe';

// Every test opens a page of its own and reads nothing another writes: spread them over the
// workers (on one, the 56 scans were most of the end-to-end phase).
test.describe.configure({ mode: 'parallel' });

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

/** Opens a dialog or popover with `open`, scans the page with it open, and closes it with Escape. */
async function scanOpen(page: Page, open: () => Promise<void>, opened: Locator) {
  await open();
  await expect(opened).toBeVisible();
  expect(await seriousFindings(page)).toEqual([]);
  await page.keyboard.press('Escape');
  await expect(opened).toBeHidden();
}

// The scan itself: it switches the page to each scheme and measures what that scheme shows.
test('a scan finds text that is readable in one colour scheme only, in that scheme', async ({
  page,
}) => {
  await page.goto('/catalog');
  await expect(page.getByRole('table', { name: 'Models' })).toBeVisible();
  await page.evaluate(() => {
    const style = document.createElement('style');
    style.textContent = `#faint { color: #e6e6e6; background: #ffffff; }
      @media (prefers-color-scheme: dark) { #faint { color: #1a1a1a; background: #000000; } }
      #faint-light { color: #f2f2f2; background: #ffffff; }
      @media (prefers-color-scheme: dark) { #faint-light { color: #ffffff; background: #000000; } }`;
    document.head.append(style);
    for (const id of ['faint', 'faint-light']) {
      const text = document.createElement('p');
      text.id = id;
      text.textContent = 'Hard to read';
      document.querySelector('main')!.append(text);
    }
  });
  const findings = (await seriousFindings(page)).map(({ colorScheme, id, targets }) => ({
    colorScheme,
    id,
    targets,
  }));
  expect(findings).toEqual([
    { colorScheme: 'light', id: 'color-contrast', targets: ['#faint', '#faint-light'] },
    { colorScheme: 'dark', id: 'color-contrast', targets: ['#faint'] },
  ]);
});

for (const viewport of axeViewports) {
  test.describe(`accessibility (${viewport.name})`, () => {
    test.use(viewport.size ? { viewport: viewport.size } : {});

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
        // On a phone the filters fold away behind one button.
        if (viewport.size) await page.getByRole('button', { name: 'Filters' }).click();
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

    test('the Key picker, open, has no serious or critical axe findings', async ({ page }) => {
      await page.goto('/catalog');
      await expect(page.getByRole('table', { name: 'Models' })).toBeVisible();
      await scanOpen(
        page,
        () => page.getByRole('combobox', { name: 'Key' }).click(),
        page.getByRole('listbox'),
      );
    });

    test('the playground after a reply, and each of its dialogs and its Presets popover, has no serious or critical axe findings', async ({
      page,
    }) => {
      // A reply and five scans (ten, light and dark): past 60 s on a 2-core machine shared with another run.
      test.slow();
      await page.goto('/playground?model=sim/echo-mini');
      await page.getByRole('spinbutton', { name: 'max_tokens' }).fill('20');
      await page.getByRole('textbox', { name: 'Message' }).fill('Hello from the axe scan');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      const reply = page.getByRole('listitem', { name: 'assistant turn 2' });
      await expect(page.getByRole('button', { name: 'Stop', exact: true })).toHaveCount(0, {
        timeout: 30_000,
      });
      await expect(reply.getByText('Trace ID', { exact: true })).toBeVisible();
      expect(await seriousFindings(page)).toEqual([]);

      await scanOpen(
        page,
        () => reply.getByRole('button', { name: 'Raw request and response of turn 2' }).click(),
        page.getByRole('dialog', { name: 'Raw request and response' }),
      );
      await scanOpen(
        page,
        () => page.getByRole('button', { name: 'Get code' }).click(),
        page.getByRole('dialog', { name: 'Get code' }),
      );
      await scanOpen(
        page,
        () => page.getByRole('button', { name: 'History' }).click(),
        page.getByRole('dialog', { name: 'History' }),
      );
      await scanOpen(
        page,
        () => page.getByRole('button', { name: /^Presets/ }).click(),
        page.getByRole('dialog', { name: 'Presets' }),
      );
    });

    test("the Keys page's Validate key dialog, before and after its check, has no serious or critical axe findings", async ({
      page,
    }) => {
      await page.goto('/keys');
      await page.getByRole('button', { name: 'Validate key' }).click();
      const dialog = page.getByRole('dialog');
      await expect(dialog.getByText('Estimated cost:')).toBeVisible();
      expect(await seriousFindings(page)).toEqual([]);
      await dialog.getByRole('button', { name: /Run check/ }).click();
      await expect(dialog.getByRole('status').filter({ hasText: /Valid|Not valid/ })).toBeVisible();
      expect(await seriousFindings(page)).toEqual([]);
    });
  });
}
