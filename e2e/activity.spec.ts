/**
 * The Activity page against the real BFF and the embedded gateway: requests made in the
 * playground appear with the cost the playground showed and their cf-ray, and open into their
 * whole record; the charts, the totals and the exported CSV agree to the nano-dollar; and the
 * page, its detail panel open too, has no serious axe findings with data in it, light and dark.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from './fixtures';
import { cfRayPattern, generationRecordSchema } from '../contract/gateway';
import { axeViewports, seriousFindings } from './axe';
import { e2eDataDir, e2eGatewayPort } from './environment';

const gatewayUrl = `http://127.0.0.1:${e2eGatewayPort}`;

/** The demo keys the start script created; the test reads generation records with one. */
function demoKey(profile: string): string {
  const keys = JSON.parse(
    fs.readFileSync(path.join(e2eDataDir, 'demo-keys.json'), 'utf8'),
  ) as Record<string, string>;
  const key = keys[profile];
  if (!key) throw new Error(`No demo key ${profile} in ${e2eDataDir}/demo-keys.json`);
  return key;
}

/** `$1,234.000123` or `0.000123` (CSV) as whole nano-dollars, exactly. */
function nanosOf(text: string): bigint {
  const match = /^\$?([\d,]+)(?:\.(\d{1,9}))?$/.exec(text.trim());
  if (!match) throw new Error(`not an amount: ${JSON.stringify(text)}`);
  return (
    BigInt(match[1]!.replaceAll(',', '')) * 1_000_000_000n + BigInt((match[2] ?? '').padEnd(9, '0'))
  );
}

/** A USD float of the gateway (nanos / 1e9) as whole nano-dollars. */
const nanosOfUsd = (usd: number) => BigInt(Math.round(usd * 1e9));

/** Sends one message in the playground and returns the reply's trace id and charged cost. */
async function requestInPlayground(page: Page, turn: number, text: string) {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  const reply = page.getByRole('listitem', { name: `assistant turn ${turn}` });
  await expect(page.getByRole('button', { name: 'Stop', exact: true })).toHaveCount(0, {
    timeout: 30_000,
  });
  const traceId = reply.getByLabel('Trace ID', { exact: true });
  await expect(traceId).toHaveText(cfRayPattern);
  // Once the reply ends, the playground shows what the gateway charged (its generation record).
  const charged = reply.locator('div:has(> dt:text-is("Charged")) > dd');
  await expect(charged).toHaveText(/^\$\d/, { timeout: 15_000 });
  return { id: (await traceId.textContent()) ?? '', cost: (await charged.textContent()) ?? '' };
}

/** Reads a downloaded CSV: its lines as fields (no field here holds a comma). */
function csvRows(text: string): string[][] {
  return text
    .trimEnd()
    .split('\r\n')
    .map((line) => line.split(','));
}

test.describe.configure({ mode: 'serial' });

test.describe('activity', () => {
  test('the Activity page shows requests made in the playground, with matching costs and cf-rays', async ({
    page,
    request,
  }) => {
    await page.goto('/playground?model=sim/chat-standard');
    await page.getByRole('spinbutton', { name: 'max_tokens' }).fill('24');
    const made = [
      await requestInPlayground(page, 2, 'First request for the activity page'),
      await requestInPlayground(page, 4, 'Second request for the activity page'),
    ];

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Activity' })
      .click();
    await expect(page).toHaveURL(/\/activity/);
    await expect(page.getByRole('heading', { name: 'Activity', level: 1 })).toBeVisible();
    const table = page.getByRole('table', { name: 'Requests' });
    const key = demoKey('demo-account');
    for (const { id, cost } of made) {
      const row = table.getByRole('row').filter({ hasText: id });
      await expect(row).toHaveCount(1);
      await expect(row).toContainText('sim/chat-standard');
      // The cost the playground showed, and exactly the gateway's record.
      await expect(row.getByTestId('request-cost')).toHaveText(cost);
      const record = generationRecordSchema.parse(
        await (
          await request.get(`${gatewayUrl}/v1/generation?id=${encodeURIComponent(id)}`, {
            headers: { Authorization: `Bearer ${key}` },
          })
        ).json(),
      );
      expect(nanosOf(cost)).toBe(nanosOfUsd(record.cost_usd));
      await expect(row.getByRole('button', { name: `Copy cf-ray ${id}` })).toBeVisible();
    }
    // The cf-ray opens the request's whole record: its trace id, the row's cost, its attempts.
    const latest = made[1]!;
    await table
      .getByRole('row')
      .filter({ hasText: latest.id })
      .getByRole('button', { name: `Details of request ${latest.id}` })
      .filter({ visible: true })
      .click();
    const panel = page.getByRole('dialog', { name: `Request ${latest.id}` });
    await expect(panel).toBeVisible();
    const traceSection = panel.getByRole('region', { name: 'Trace id' });
    await expect(traceSection).toContainText(latest.id);
    await expect(
      traceSection.getByRole('button', { name: `Copy cf-ray ${latest.id}` }),
    ).toBeVisible();
    await expect(panel.getByTestId('request-detail-cost')).toHaveText(latest.cost);
    await expect(panel.getByRole('region', { name: 'Attempts' }).getByRole('row')).toHaveCount(2);
    await expect(panel.getByRole('region', { name: 'Charge' })).toContainText(/Pending|Settled/);
    await page.keyboard.press('Escape');
    await expect(panel).toHaveCount(0);
    // Focus is back on the row that opened it.
    await expect(
      table.locator(`[data-request-details="${latest.id}"]`).filter({ visible: true }),
    ).toBeFocused();

    // Newest first: the second request is above the first.
    const order = await table.getByRole('row').allTextContents();
    const position = (id: string) => order.findIndex((text) => text.includes(id));
    expect(position(made[1]!.id)).toBeLessThan(position(made[0]!.id));

    // The filters live in the URL: one model, then back to all.
    await page.getByRole('combobox', { name: 'Model' }).click();
    // Exact: requests other tests on this workbench made list sim/chat-standard:free here too.
    await page.getByRole('option', { name: 'sim/chat-standard', exact: true }).click();
    await expect(page).toHaveURL(/model=sim%2Fchat-standard/);
    await expect(table.getByRole('row').filter({ hasText: made[1]!.id })).toHaveCount(1);
    await page.goBack();
    await expect(page).not.toHaveURL(/model=/);
  });

  test('the chart and the CSV hold the same totals', async ({ page }) => {
    await page.goto('/activity?days=7');
    const spendTotal = page.getByTestId('chart-spend-total');
    await expect(spendTotal).toHaveText(/^\$\d/);
    const chartSpend = nanosOf((await spendTotal.textContent()) ?? '');
    const chartRequests = Number(
      ((await page.getByTestId('chart-requests-total').textContent()) ?? '').replaceAll(',', ''),
    );
    expect(chartSpend).toBeGreaterThan(0n);
    expect(chartRequests).toBeGreaterThanOrEqual(2);

    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(
      /^activity-demo-account-\d{4}-\d\d-\d\d-to-\d{4}-\d\d-\d\d\.csv$/,
    );
    const rows = csvRows(fs.readFileSync(await download.path(), 'utf8'));
    expect(rows[0]).toEqual([
      'date',
      'model',
      'requests',
      'prompt_tokens',
      'completion_tokens',
      'cost_usd',
    ]);
    const total = rows.at(-1)!;
    expect(total[0]).toBe('total');
    const lines = rows.slice(1, -1);
    // The CSV's lines add up to its total, and its total is the chart's, to the nano-dollar.
    expect(lines.reduce((sum, fields) => sum + nanosOf(fields[5]!), 0n)).toBe(nanosOf(total[5]!));
    expect(lines.reduce((sum, fields) => sum + Number(fields[2]), 0)).toBe(Number(total[2]));
    expect(nanosOf(total[5]!)).toBe(chartSpend);
    expect(Number(total[2])).toBe(chartRequests);
    // The page's totals say the same.
    const totals = page.getByRole('region', { name: /^Totals for/ });
    await expect(totals.locator('div:has(> dt:text-is("Spend")) > dd')).toHaveText(
      (await spendTotal.textContent()) ?? '',
    );

    // Hovering today's bar shows today's exact spend: the CSV's lines of today, added up.
    const today = new Date().toISOString().slice(0, 10);
    const todaySpend = lines
      .filter((fields) => fields[0] === today)
      .reduce((sum, fields) => sum + nanosOf(fields[5]!), 0n);
    const chart = page.getByRole('figure', { name: /Spend per day/ });
    const plotArea = chart.locator('.u-over');
    const box = (await plotArea.boundingBox())!;
    // Seven days from -0.5 to 6.5: today's bar is the last, 13/14 of the way across.
    await page.mouse.move(box.x + (box.width * 13) / 14, box.y + box.height - 4);
    const tooltip = chart.getByTestId('chart-tooltip');
    await expect(tooltip).toBeVisible();
    const tooltipTotal = tooltip
      .locator('p', { hasText: /^Total/ })
      .locator('span')
      .last();
    expect(nanosOf((await tooltipTotal.textContent()) ?? '')).toBe(todaySpend);
  });

  test('on narrow screens every link of the navigation is in view and nothing overflows', async ({
    page,
  }) => {
    for (const width of [390, 320]) {
      await page.setViewportSize({ width, height: 844 });
      await page.goto('/activity');
      const navigation = page.getByRole('navigation', { name: 'Main' });
      await expect(navigation.getByRole('link', { name: 'Activity' })).toHaveAttribute(
        'aria-current',
        'page',
      );
      // All of each (before, the row scrolled: "Acti" showed, or "alog" once Activity was).
      for (const name of ['Catalog', 'Playground', 'Keys', 'Endpoints', 'Activity']) {
        await expect(navigation.getByRole('link', { name })).toBeInViewport({ ratio: 1 });
      }
      await expect(page.getByRole('button', { name: '90 days' })).toBeInViewport({ ratio: 1 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        width,
      );
    }
  });

  test('the navigation keeps ?profile= so the next page’s URL names the profile too', async ({
    page,
  }) => {
    await page.goto('/keys?profile=demo-shared-child');
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Activity' })
      .click();
    await expect(page).toHaveURL(/\/activity\?profile=demo-shared-child$/);
    await expect(page.getByRole('combobox', { name: 'Key' })).toHaveText(/demo-shared-child/);
  });

  test('says a range older than 90 days and an unknown model are what they are', async ({
    page,
  }) => {
    await page.goto('/activity?from=2020-01-01&to=2020-01-05&model=nope%2Fnone');
    const corrected = page.getByText(/^The address asked for something the gateway cannot show/);
    await expect(corrected).toContainText('2020-01-01 to 2020-01-05 ended before that');
    await expect(corrected).not.toContainText('started after it ended');
    await expect(
      page.getByText(/^“nope\/none” is not a model in the gateway’s catalog/),
    ).toBeVisible();
  });

  for (const viewport of axeViewports) {
    test.describe(`with requests (${viewport.name})`, () => {
      test.use(viewport.size ? { viewport: viewport.size } : {});

      test('the Activity page has no serious or critical axe findings', async ({ page }) => {
        await page.goto('/activity');
        await expect(page.getByRole('table', { name: 'Requests' })).toBeVisible();
        await expect(page.getByTestId('chart-spend-total')).toBeVisible();
        // The hover card and the table of figures are part of the page too.
        await page.getByText('Figures per day as a table').click();
        await page.getByRole('group', { name: /^Spend per day, by model/ }).focus();
        await page.keyboard.press('End');
        await expect(page.getByTestId('chart-tooltip')).toBeVisible();
        expect(await seriousFindings(page)).toEqual([]);
        // And a request's detail panel, open over it.
        await page
          .getByRole('button', { name: /^Details of request / })
          .filter({ visible: true })
          .first()
          .click();
        await expect(page.getByRole('dialog', { name: /^Request / })).toBeVisible();
        expect(await seriousFindings(page)).toEqual([]);
      });
    });
  }
});
