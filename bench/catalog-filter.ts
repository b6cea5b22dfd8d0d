/**
 * Filtering a 2,000-model catalog, as the catalog page does on every keystroke: search typed a
 * character at a time, with a filter and a price range set, then sorted. Prints the time per
 * keystroke (p50, p99, max over several rounds). Budget: 16 ms, one frame.
 *
 * Usage: npm run --silent bench:catalog   (also run as part of `npm run bench`)
 */
import { performance } from 'node:perf_hooks';
import {
  defaultFilters,
  filterModels,
  indexModels,
  sortModels,
  type CatalogFilters,
} from '../web/features/catalog/catalog-filters';
import { makeCatalog } from '../web/test/fixtures';

const BUDGET_MS = 16;

export function measureCatalogFilter(models = 2_000, rounds = 20) {
  const indexed = indexModels(makeCatalog(models));
  const typed = 'vision agents';
  const timings: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    for (let length = 1; length <= typed.length; length += 1) {
      const filters: CatalogFilters = {
        ...defaultFilters,
        search: typed.slice(0, length),
        inputModality: round % 2 === 0 ? 'image' : null,
        parameters: ['tools'],
        priceMinimum: '0.1',
        priceMaximum: '2,5',
        sort: round % 3 === 0 ? 'prompt' : 'name',
      };
      const started = performance.now();
      const shown = sortModels(filterModels(indexed, filters), filters.sort, filters.direction);
      timings.push(performance.now() - started);
      if (shown.length > models) throw new Error('filtering added models');
    }
  }
  timings.sort((a, b) => a - b);
  const at = (fraction: number) =>
    timings[Math.min(timings.length - 1, Math.floor(fraction * timings.length))]!;
  return {
    models,
    keystrokes: timings.length,
    p50: at(0.5),
    p99: at(0.99),
    max: timings.at(-1)!,
    budget: BUDGET_MS,
  };
}

if (process.argv[1]?.endsWith('catalog-filter.ts')) {
  const result = measureCatalogFilter();
  const round = (value: number) => Math.round(value * 1000) / 1000;
  console.log(
    `Catalog filter, ${result.models} models, ${result.keystrokes} keystrokes: ` +
      `p50 ${round(result.p50)} ms, p99 ${round(result.p99)} ms, max ${round(result.max)} ms ` +
      `(budget ${result.budget} ms per keystroke: ${result.p99 <= result.budget ? 'within' : 'OVER'})`,
  );
}
