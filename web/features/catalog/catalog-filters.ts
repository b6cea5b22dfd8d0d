/**
 * The catalog's filters and sorting as pure functions over the URL's query string, so a
 * filtered view is bookmarkable and the logic is testable without a browser.
 */
import type { CatalogModel } from '../../../contract/workbench-api';
import {
  compareDecimal,
  decimalToString,
  readTypedAmount,
  type Decimal,
  type TypedAmount,
} from '../../../contract/decimal';
import { pricePerMillion } from '../../lib/format';

export const sortFields = ['name', 'prompt', 'completion', 'context', 'newest'] as const;
export type SortField = (typeof sortFields)[number];
export type SortDirection = 'asc' | 'desc';
export type PriceBasis = 'prompt' | 'completion';

/** `any`, `none` (the base model), or a variant name such as `free` or `batch`. */
export type VariantFilter = string;

export interface CatalogFilters {
  search: string;
  author: string | null;
  inputModality: string | null;
  outputModality: string | null;
  variant: VariantFilter;
  /** Every one of these must be in the model's supported parameters. */
  parameters: string[];
  /** Bounds in USD per million tokens, as typed (decimal strings); empty when unset. */
  priceMinimum: string;
  priceMaximum: string;
  priceBasis: PriceBasis;
  sort: SortField;
  direction: SortDirection;
}

export const defaultFilters: CatalogFilters = {
  search: '',
  author: null,
  inputModality: null,
  outputModality: null,
  variant: 'any',
  parameters: [],
  priceMinimum: '',
  priceMaximum: '',
  priceBasis: 'prompt',
  sort: 'name',
  direction: 'asc',
};

/** The direction a sort starts in when chosen: cheapest, longest and newest first are useful. */
export function defaultDirection(field: SortField): SortDirection {
  return field === 'context' || field === 'newest' ? 'desc' : 'asc';
}

/** Reads filters from the query string, ignoring values it does not understand. */
export function readFilters(search: URLSearchParams): CatalogFilters {
  const sort = search.get('sort');
  const validSort = sortFields.find((field) => field === sort) ?? defaultFilters.sort;
  const direction = search.get('dir');
  const priceBasis = search.get('price');
  return {
    search: search.get('q') ?? '',
    author: search.get('author') || null,
    inputModality: search.get('in') || null,
    outputModality: search.get('out') || null,
    variant: search.get('variant') || 'any',
    parameters: (search.get('params') ?? '').split(',').filter(Boolean),
    priceMinimum: search.get('min') ?? '',
    priceMaximum: search.get('max') ?? '',
    priceBasis: priceBasis === 'completion' ? 'completion' : 'prompt',
    sort: validSort,
    direction:
      direction === 'asc' || direction === 'desc' ? direction : defaultDirection(validSort),
  };
}

/**
 * Writes filters into a copy of `current`, dropping defaults so URLs stay short and keeping
 * parameters that are not the catalog's (e.g. `model`, `profile`).
 */
export function writeFilters(current: URLSearchParams, filters: CatalogFilters): URLSearchParams {
  const next = new URLSearchParams(current);
  const set = (name: string, value: string | null, fallback: string | null = null) => {
    if (value === null || value === '' || value === fallback) next.delete(name);
    else next.set(name, value);
  };
  set('q', filters.search);
  set('author', filters.author);
  set('in', filters.inputModality);
  set('out', filters.outputModality);
  set('variant', filters.variant, 'any');
  set('params', filters.parameters.join(','));
  set('min', filters.priceMinimum);
  set('max', filters.priceMaximum);
  set('price', filters.priceBasis, 'prompt');
  set('sort', filters.sort, 'name');
  set('dir', filters.direction, defaultDirection(filters.sort));
  return next;
}

/** How many filters narrow the list (search excluded), for a "Clear filters" affordance. */
export function countActiveFilters(filters: CatalogFilters): number {
  return [
    filters.author !== null,
    filters.inputModality !== null,
    filters.outputModality !== null,
    filters.variant !== 'any',
    filters.parameters.length > 0,
    filters.priceMinimum !== '' || filters.priceMaximum !== '',
  ].filter(Boolean).length;
}

/** Facet values present in the catalog, sorted, for the filter menus. */
export interface CatalogFacets {
  authors: string[];
  inputModalities: string[];
  outputModalities: string[];
  variants: string[];
  parameters: string[];
}

export function collectFacets(models: CatalogModel[]): CatalogFacets {
  const authors = new Set<string>();
  const inputModalities = new Set<string>();
  const outputModalities = new Set<string>();
  const variants = new Set<string>(['free', 'batch']);
  const parameters = new Set<string>();
  for (const model of models) {
    if (model.author) authors.add(model.author);
    for (const modality of model.input_modalities) inputModalities.add(modality);
    for (const modality of model.output_modalities) outputModalities.add(modality);
    if (model.variant) variants.add(model.variant);
    for (const parameter of model.supported_parameters) parameters.add(parameter);
  }
  const sorted = (values: Set<string>) => [...values].sort((a, b) => a.localeCompare(b));
  return {
    authors: sorted(authors),
    inputModalities: sorted(inputModalities),
    outputModalities: sorted(outputModalities),
    variants: sorted(variants),
    parameters: sorted(parameters),
  };
}

/** A model with the values filtering and sorting need, computed once per catalog load. */
export interface IndexedModel {
  model: CatalogModel;
  /** id, name and description, lower-cased, for the search. */
  haystack: string;
  promptPerMillion: Decimal | null;
  completionPerMillion: Decimal | null;
}

export function indexModels(models: CatalogModel[]): IndexedModel[] {
  return models.map((model) => ({
    model,
    haystack: `${model.id}\n${model.name}\n${model.description}`.toLowerCase(),
    promptPerMillion: pricePerMillion(model.prompt_price),
    completionPerMillion: pricePerMillion(model.completion_price),
  }));
}

/** A price bound as typed, read: its value, or what is wrong with the text. */
export type PriceBound = TypedAmount;

/**
 * Reads a price bound as a person types it: "$3", "0.5", a decimal comma ("1,5" is 1.5) or
 * thousands separators ("1,000.5"); "1,000" alone is refused with a question (`readTypedAmount`).
 */
export function readPriceBound(text: string): PriceBound {
  return readTypedAmount(text);
}

/** A price bound's value; null when empty or unreadable (see `readPriceBound` for why). */
export function parsePriceBound(text: string): Decimal | null {
  return readPriceBound(text).value;
}

/**
 * Why the price range can match nothing: From above To. Null when the range is fine (or a bound
 * is empty or unreadable, which its own message explains).
 */
export function priceRangeProblem(priceMinimum: string, priceMaximum: string): string | null {
  const minimum = parsePriceBound(priceMinimum);
  const maximum = parsePriceBound(priceMaximum);
  if (!minimum || !maximum || compareDecimal(minimum, maximum) <= 0) return null;
  // The amounts as read, so "1,5" shows as the 1.5 it was taken for.
  return `From ($${decimalToString(minimum)}) is above To ($${decimalToString(maximum)}): no price is in this range. Swap them, or lower From.`;
}

/** A filter value from the URL that the catalog does not have, and so was ignored. */
export interface IgnoredFilter {
  /** The URL parameter, e.g. `in`. */
  name: string;
  value: string;
}

/**
 * Drops filter values no model has (a mistyped or outdated link: `?in=foo&variant=nope`), so
 * they neither empty the list nor count as active filters. Returns what was dropped, so the page
 * can say so. Call it only with the loaded catalog's facets.
 */
export function sanitizeFilters(
  filters: CatalogFilters,
  facets: CatalogFacets,
): { filters: CatalogFilters; ignored: IgnoredFilter[] } {
  const ignored: IgnoredFilter[] = [];
  const keep = (name: string, value: string | null, known: string[]): string | null => {
    if (value === null || known.includes(value)) return value;
    ignored.push({ name, value });
    return null;
  };
  const knownVariant =
    filters.variant === 'any' ||
    filters.variant === 'none' ||
    facets.variants.includes(filters.variant);
  if (!knownVariant) ignored.push({ name: 'variant', value: filters.variant });
  const variant = knownVariant ? filters.variant : 'any';
  const parameters = filters.parameters.filter((parameter) => {
    if (facets.parameters.includes(parameter)) return true;
    ignored.push({ name: 'params', value: parameter });
    return false;
  });
  return {
    filters: {
      ...filters,
      author: keep('author', filters.author, facets.authors),
      inputModality: keep('in', filters.inputModality, facets.inputModalities),
      outputModality: keep('out', filters.outputModality, facets.outputModalities),
      variant,
      parameters,
    },
    ignored,
  };
}

/** The models that pass every filter, in catalog order. */
export function filterModels(indexed: IndexedModel[], filters: CatalogFilters): IndexedModel[] {
  const terms = filters.search.toLowerCase().split(/\s+/).filter(Boolean);
  const minimum = parsePriceBound(filters.priceMinimum);
  const maximum = parsePriceBound(filters.priceMaximum);
  return indexed.filter((entry) => {
    const { model } = entry;
    if (terms.some((term) => !entry.haystack.includes(term))) return false;
    if (filters.author !== null && model.author !== filters.author) return false;
    if (filters.inputModality !== null && !model.input_modalities.includes(filters.inputModality)) {
      return false;
    }
    if (
      filters.outputModality !== null &&
      !model.output_modalities.includes(filters.outputModality)
    ) {
      return false;
    }
    if (filters.variant === 'none' && model.variant !== null) return false;
    if (
      filters.variant !== 'any' &&
      filters.variant !== 'none' &&
      model.variant !== filters.variant
    ) {
      return false;
    }
    if (filters.parameters.some((parameter) => !model.supported_parameters.includes(parameter))) {
      return false;
    }
    if (minimum || maximum) {
      const price =
        filters.priceBasis === 'prompt' ? entry.promptPerMillion : entry.completionPerMillion;
      // A model without a known price (or a variable one) cannot be said to be in any range.
      if (!price || price.digits < 0n) return false;
      if (minimum && compareDecimal(price, minimum) < 0) return false;
      if (maximum && compareDecimal(price, maximum) > 0) return false;
    }
    return true;
  });
}

function compareNullable<T>(
  left: T | null,
  right: T | null,
  compare: (a: T, b: T) => number,
  direction: number,
): number {
  // Unknown values sort last whichever way the list is sorted.
  if (left === null && right === null) return 0;
  if (left === null) return 1;
  if (right === null) return -1;
  return compare(left, right) * direction;
}

/** A sorted copy; ties fall back to the id so the order is stable and predictable. */
export function sortModels(
  indexed: IndexedModel[],
  field: SortField,
  direction: SortDirection,
): IndexedModel[] {
  const sign = direction === 'asc' ? 1 : -1;
  const byNumber = (a: number, b: number) => a - b;
  const compare = (left: IndexedModel, right: IndexedModel): number => {
    switch (field) {
      case 'name':
        return (
          (left.model.name || left.model.id).localeCompare(right.model.name || right.model.id) *
          sign
        );
      case 'prompt':
        return compareNullable(left.promptPerMillion, right.promptPerMillion, compareDecimal, sign);
      case 'completion':
        return compareNullable(
          left.completionPerMillion,
          right.completionPerMillion,
          compareDecimal,
          sign,
        );
      case 'context':
        return compareNullable(
          left.model.context_length,
          right.model.context_length,
          byNumber,
          sign,
        );
      case 'newest':
        return compareNullable(left.model.created, right.model.created, byNumber, sign);
      default:
        return 0;
    }
  };
  return [...indexed].sort(
    (left, right) => compare(left, right) || left.model.id.localeCompare(right.model.id),
  );
}
