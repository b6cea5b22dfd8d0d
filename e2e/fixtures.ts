/**
 * Playwright's `test`, pointed at this worker's own workbench (see environment.ts): every spec
 * imports `test` and `expect` from here, never from '@playwright/test' directly.
 */
import { test as base } from '@playwright/test';
import { e2eWorkbenchUrl } from './environment';

export const test = base.extend({
  // Playwright reads a fixture's dependencies from this pattern, so it must stay an object.
  // eslint-disable-next-line no-empty-pattern
  baseURL: async ({}, use) => use(e2eWorkbenchUrl),
});
export { expect } from '@playwright/test';
export type { Page, Locator, Browser, BrowserContext, APIRequestContext } from '@playwright/test';
