/** axe's serious and critical findings on a page, with the rule set every accessibility check uses. */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

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
    })
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
