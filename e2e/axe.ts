/** axe's serious and critical findings on a page, with the rule set every accessibility check uses. */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

/**
 * Every page, dialog and popover is scanned in light and dark, on a desktop window (Playwright's
 * 1280×720) and on a phone (390×844, an iPhone 12 to 15), where layouts wrap and stack.
 */
export const axeViewports = [
  { name: 'desktop', size: null },
  { name: 'phone', size: { width: 390, height: 844 } },
] as const;

/** What axe reports (axe-core's `AxeResults`; axe-core comes with @axe-core/playwright). */
type AxeResults = Awaited<ReturnType<AxeBuilder['analyze']>>;

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
 * axe's serious and critical violations on the page, and anything axe could not check there (see
 * `uncheckedFindings`): a check expects none.
 */
export async function seriousFindings(page: Page) {
  // A colour mid-transition (a button fading from disabled to enabled) is measured as whatever
  // it is at that instant, so a check could fail or pass by timing. Judge the settled page:
  // transitions are turned off, so a state that changes while axe runs (data arriving enables a
  // button) is measured at its end, not halfway there (seen: a dark-mode primary button at half
  // its fade, in one CI run of three); running animations are waited for (a spinner's endless
  // animation never settles, so it is not).
  await page.addStyleTag({
    content: '*, *::before, *::after { transition-property: none !important; }',
  });
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((animation) => animation.effect?.getTiming().iterations !== Infinity)
        .map((animation) => animation.finished.catch(() => null)),
    ),
  );
  // One options object: AxeBuilder's `options()` replaces what `withTags()` set, so the two
  // chained would run every rule but the tag list meant to narrow them.
  const results = await new AxeBuilder({ page })
    // axe.run in the page itself. The default runs each frame apart and merges the results in a
    // blank page it opens for every scan; the workbench has no frames, and that took half a scan.
    .setLegacyMode()
    .options({
      runOnly: {
        type: 'tag',
        values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'],
      },
      rules: {
        // Label in name (WCAG 2.5.3): axe still calls the rule experimental and leaves it off
        // (its tags match, but experimental rules run only when named), yet a visible word
        // missing from a control's name stops people who speak to their computer. A rule's own
        // `enabled` wins over the tag list.
        'label-content-name-mismatch': { enabled: true },
      },
      // Passing and inapplicable rules keep one node each: a selector for every node that passed
      // was most of what was left of a scan, and no check reads them.
      resultTypes: ['violations', 'incomplete'],
    })
    .analyze();
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
