/** axe's serious and critical findings on a page, with the rule set every accessibility check uses. */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from '@playwright/test';
import type { AxeResults, RunOptions, run } from 'axe-core';

/**
 * Every page, dialog and popover is scanned on a desktop window (Playwright's 1280×720) and on a
 * phone (390×844, an iPhone 12 to 15), where layouts wrap and stack; each scan covers light and
 * dark (`seriousFindings`).
 */
export const axeViewports = [
  { name: 'desktop', size: null },
  { name: 'phone', size: { width: 390, height: 844 } },
] as const;

/**
 * Where axe could not check because something it needs threw, as findings. A rule whose check
 * throws is reported as incomplete (not as a violation) with the error and one `error-occurred`
 * check, having checked none of its nodes; a colour axe cannot parse stops the contrast checks
 * of every text over it, each reported as incomplete with the `colorParse` message. Either way
 * nothing was measured, so a page could pass every scan unchecked (seen: Tailwind's
 * `oklch(98.5% 0 none)` for zinc-50 made `color-contrast` throw with the Create child key
 * dialog open, and skip every text on zinc-50, such as the tables' headers). Incomplete results
 * for other reasons (text over an image or a gradient, a glyph that is no text) are axe saying
 * "look yourself", not a failure, and are left out.
 */
export function uncheckedFindings(results: Pick<AxeResults, 'incomplete'>) {
  return results.incomplete.flatMap((result) => {
    if (
      result.error !== undefined ||
      result.nodes.some((node) => checksOf(node).some((check) => check.id === 'error-occurred'))
    ) {
      return [
        {
          id: result.id,
          impact: 'error',
          help: `axe could not run this rule: ${result.error?.message ?? 'a check threw'}`,
          targets: result.nodes.map((node) => node.target.join(' ')),
        },
      ];
    }
    const unparsed = result.nodes.filter((node) => unparsedColours(node).length > 0);
    if (unparsed.length === 0) return [];
    return [
      {
        id: result.id,
        impact: 'error',
        help: `axe could not parse the colour ${[...new Set(unparsed.flatMap(unparsedColours))].join(', ')}`,
        targets: unparsed.map((node) => node.target.join(' ')),
      },
    ];
  });
}

type NodeResult = AxeResults['incomplete'][number]['nodes'][number];

function checksOf(node: NodeResult) {
  return [...node.any, ...node.all, ...node.none];
}

/** The colours a node's checks could not parse (axe's `colorParse` incomplete message). */
function unparsedColours(node: NodeResult): string[] {
  return checksOf(node).flatMap((check) => {
    const data = check.data as { messageKey?: unknown; colorParse?: unknown } | null;
    return data?.messageKey === 'colorParse' ? [String(data.colorParse)] : [];
  });
}

/**
 * Every scan checks the page in both colour schemes, switched in place rather than loaded twice:
 * the workbench's dark mode is CSS media queries, and its charts follow the change.
 */
export const colorSchemes = ['light', 'dark'] as const;

const runOptions: RunOptions = {
  runOnly: {
    type: 'tag',
    values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'],
  },
  rules: {
    // Label in name (WCAG 2.5.3): axe still calls the rule experimental and leaves it off (its
    // tags match, but experimental rules run only when named), yet a visible word missing from a
    // control's name stops people who speak to their computer. A rule's own `enabled` wins over
    // the tag list.
    'label-content-name-mismatch': { enabled: true },
  },
  // Passing and inapplicable rules keep one node each: a selector for every node that passed was
  // most of what was left of a scan, and no check reads them.
  resultTypes: ['violations', 'incomplete'],
};

const axeSource = fs.readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

/**
 * axe.run in the page, loaded into it once per document. (@axe-core/playwright evaluated its
 * 560 KB twice per scan, which took longer than the scan itself; the workbench has no frames, so
 * running each frame apart, as it does by default, bought nothing either.)
 */
async function scan(page: Page): Promise<Pick<AxeResults, 'violations' | 'incomplete'>> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  return page.evaluate(async (options) => {
    const { axe } = window as unknown as { axe: { run: typeof run } };
    const { violations, incomplete } = await axe.run(document, options);
    return { violations, incomplete };
  }, runOptions);
}

/** A scan's serious and critical violations, and what it could not check (`uncheckedFindings`). */
function findingsOf(results: Pick<AxeResults, 'violations' | 'incomplete'>) {
  return [
    ...results.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => ({
        id: violation.id,
        impact: violation.impact,
        help: violation.help,
        targets: violation.nodes.map((node) => node.target.join(' ')),
      })),
    ...uncheckedFindings(results),
  ];
}

/**
 * axe's serious and critical violations on the page, and anything axe could not check there (see
 * `uncheckedFindings`), in each colour scheme: a check expects none. The page is left dark.
 */
export async function seriousFindings(page: Page) {
  // A colour mid-transition (a button fading from disabled to enabled, or the whole page from
  // light to dark) is measured as whatever it is at that instant, so a check could fail or pass
  // by timing. Judge the settled page: transitions are turned off, so a state that changes while
  // axe runs (data arriving enables a button) is measured at its end, not halfway there (seen: a
  // dark-mode primary button at half its fade, in one CI run of three); running animations are
  // waited for (a spinner's endless animation never settles, so it is not).
  await page.addStyleTag({
    content: '*, *::before, *::after { transition-property: none !important; }',
  });
  const findings = [];
  for (const colorScheme of colorSchemes) {
    await page.emulateMedia({ colorScheme });
    await page.evaluate(async () => {
      await Promise.all(
        document
          .getAnimations()
          .filter((animation) => animation.effect?.getTiming().iterations !== Infinity)
          .map((animation) => animation.finished.catch(() => null)),
      );
      // What follows the change in script (the charts' colours) renders in the next frames.
      for (let frame = 0; frame < 2; frame += 1) {
        await new Promise((resolve) => requestAnimationFrame(resolve));
      }
    });
    findings.push(...findingsOf(await scan(page)).map((finding) => ({ colorScheme, ...finding })));
  }
  return findings;
}
