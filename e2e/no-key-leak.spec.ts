import { expect, test, type Page } from './fixtures';

/** `sk-` followed by 20 or more key characters: a full key. Masked keys (`sk-ab12…cd34`) do not match. */
const fullKeyPattern = /sk-[A-Za-z0-9_-]{20,}/;

interface Leak {
  where: string;
  url: string;
  sample: string;
}

/** Records every request and response the page sees whose URL, headers or body holds a full key. */
function watchForKeys(page: Page): {
  leaks: Leak[];
  seen: () => number;
  settle: () => Promise<void>;
} {
  const leaks: Leak[] = [];
  const pending = new Set<Promise<void>>();
  let seen = 0;
  const check = (where: string, url: string, text: string | null | undefined) => {
    const match = text ? fullKeyPattern.exec(text) : null;
    if (match) leaks.push({ where, url, sample: `${match[0].slice(0, 8)}…` });
  };
  page.on('request', (request) => {
    seen += 1;
    check('request url', request.url(), request.url());
    check('request headers', request.url(), JSON.stringify(request.headers()));
    check('request body', request.url(), request.postData());
  });
  page.on('response', (response) => {
    const task = (async () => {
      check('response headers', response.url(), JSON.stringify(await response.allHeaders()));
      // Redirects and aborted streams have no body to read.
      const body = await response.text().catch(() => null);
      check('response body', response.url(), body);
    })();
    pending.add(task);
    void task.finally(() => pending.delete(task));
  });
  return { leaks, seen: () => seen, settle: async () => void (await Promise.all([...pending])) };
}

test('no request or response the browser sees carries a full key', async ({ page }) => {
  const watcher = watchForKeys(page);

  await page.goto('/catalog');
  await expect(page.getByText('sim/echo-mini', { exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Details of Sim: Echo Mini' }).click();
  await expect(page.getByRole('dialog')).toBeVisible();
  await page.keyboard.press('Escape');

  for (const profile of ['demo-account', 'demo-allocated-child', 'demo-shared-child']) {
    await page.goto(`/keys?profile=${profile}`);
    await expect(page.getByRole('region', { name: profile })).toBeVisible();
  }
  await page.getByRole('button', { name: 'Validate key' }).click();
  await expect(page.getByText('Estimated cost:')).toBeVisible();
  await page
    .getByRole('dialog')
    .getByRole('button', { name: /Run check/ })
    .click();
  await expect(page.getByRole('dialog').getByText(/^(Valid|Not valid)$/)).toBeVisible();
  await page.keyboard.press('Escape');

  await page.goto('/endpoints');
  await page.getByRole('button', { name: 'Run checks' }).click();
  await expect(page.getByText(/^Last run /)).toBeVisible();

  await page.goto('/playground');
  await expect(page.getByRole('combobox', { name: 'Key' })).toBeVisible();

  await watcher.settle();
  expect(watcher.seen()).toBeGreaterThan(10);
  expect(watcher.leaks).toEqual([]);
  // Nor does the page keep one anywhere it could be read back.
  const stored = await page.evaluate(
    () => JSON.stringify({ ...window.localStorage }) + document.documentElement.outerHTML,
  );
  expect(stored).not.toMatch(fullKeyPattern);
});
