import { makeModel } from '../../test/fixtures';
import {
  collectFacets,
  countActiveFilters,
  defaultFilters,
  filterModels,
  indexModels,
  priceRangeProblem,
  readFilters,
  readPriceBound,
  sanitizeFilters,
  sortModels,
  writeFilters,
  type CatalogFilters,
} from './catalog-filters';

const models = indexModels([
  makeModel({
    id: 'openai/gpt-4o',
    name: 'GPT-4o',
    description: 'Omni model',
    prompt_price: '0.0000025',
    completion_price: '0.00001',
    context_length: 128_000,
    created: 300,
    input_modalities: ['text', 'image'],
    supported_parameters: ['tools', 'response_format'],
  }),
  makeModel({
    id: 'openai/gpt-4o:free',
    name: 'GPT-4o (free)',
    variant: 'free',
    prompt_price: '0',
    completion_price: '0',
    context_length: 8192,
    created: 200,
  }),
  makeModel({
    id: 'anthropic/claude-sonnet',
    name: 'Claude Sonnet',
    description: 'Thoughtful writer',
    prompt_price: '0.000003',
    completion_price: '0.000015',
    context_length: 200_000,
    created: 100,
    supported_parameters: ['tools'],
  }),
  makeModel({
    id: 'google/gemini-flash:batch',
    name: 'Gemini Flash',
    variant: 'batch',
    prompt_price: '0.00000005',
    completion_price: '0.0000002',
    context_length: 1_048_576,
    created: null,
    output_modalities: ['text', 'image'],
  }),
  makeModel({
    id: 'mystery/unpriced',
    name: 'Unpriced',
    prompt_price: null,
    completion_price: null,
    context_length: null,
    created: 400,
  }),
]);

const ids = (list: typeof models) => list.map((entry) => entry.model.id);
const withFilters = (change: Partial<CatalogFilters>) =>
  filterModels(models, { ...defaultFilters, ...change });

describe('filterModels', () => {
  it('searches id, name and description, every word', () => {
    expect(ids(withFilters({ search: 'claude' }))).toEqual(['anthropic/claude-sonnet']);
    expect(ids(withFilters({ search: 'THOUGHTFUL' }))).toEqual(['anthropic/claude-sonnet']);
    expect(ids(withFilters({ search: 'openai/gpt' }))).toEqual([
      'openai/gpt-4o',
      'openai/gpt-4o:free',
    ]);
    expect(ids(withFilters({ search: 'gpt omni' }))).toEqual(['openai/gpt-4o']);
    expect(withFilters({ search: 'nothing-like-this' })).toHaveLength(0);
  });

  it('filters by author and modalities', () => {
    expect(ids(withFilters({ author: 'anthropic' }))).toEqual(['anthropic/claude-sonnet']);
    expect(ids(withFilters({ inputModality: 'image' }))).toEqual(['openai/gpt-4o']);
    expect(ids(withFilters({ outputModality: 'image' }))).toEqual(['google/gemini-flash:batch']);
  });

  it('filters by variant: free, batch, or base models only', () => {
    expect(ids(withFilters({ variant: 'free' }))).toEqual(['openai/gpt-4o:free']);
    expect(ids(withFilters({ variant: 'batch' }))).toEqual(['google/gemini-flash:batch']);
    expect(ids(withFilters({ variant: 'none' }))).toEqual([
      'openai/gpt-4o',
      'anthropic/claude-sonnet',
      'mystery/unpriced',
    ]);
  });

  it('requires every chosen parameter', () => {
    expect(ids(withFilters({ parameters: ['tools'] }))).toEqual([
      'openai/gpt-4o',
      'anthropic/claude-sonnet',
    ]);
    expect(ids(withFilters({ parameters: ['tools', 'response_format'] }))).toEqual([
      'openai/gpt-4o',
    ]);
  });

  it('filters by a price range per million tokens, exactly, leaving out unknown prices', () => {
    expect(ids(withFilters({ priceMinimum: '2.5', priceMaximum: '3' }))).toEqual([
      'openai/gpt-4o',
      'anthropic/claude-sonnet',
    ]);
    expect(ids(withFilters({ priceMaximum: '0.05' }))).toEqual([
      'openai/gpt-4o:free',
      'google/gemini-flash:batch',
    ]);
    expect(ids(withFilters({ priceMinimum: '$10', priceBasis: 'completion' }))).toEqual([
      'openai/gpt-4o',
      'anthropic/claude-sonnet',
    ]);
  });

  it('ignores a price bound that is not a number', () => {
    expect(withFilters({ priceMaximum: 'cheap' })).toHaveLength(models.length);
  });
});

describe('sortModels', () => {
  it('sorts by name', () => {
    expect(ids(sortModels(models, 'name', 'asc'))[0]).toBe('anthropic/claude-sonnet');
    expect(ids(sortModels(models, 'name', 'desc'))[0]).toBe('mystery/unpriced');
  });

  it('sorts by exact prompt and completion price with unknown prices last', () => {
    expect(ids(sortModels(models, 'prompt', 'asc'))).toEqual([
      'openai/gpt-4o:free',
      'google/gemini-flash:batch',
      'openai/gpt-4o',
      'anthropic/claude-sonnet',
      'mystery/unpriced',
    ]);
    expect(ids(sortModels(models, 'completion', 'desc'))).toEqual([
      'anthropic/claude-sonnet',
      'openai/gpt-4o',
      'google/gemini-flash:batch',
      'openai/gpt-4o:free',
      'mystery/unpriced',
    ]);
  });

  it('sorts by context length and newest', () => {
    expect(ids(sortModels(models, 'context', 'desc')).slice(0, 2)).toEqual([
      'google/gemini-flash:batch',
      'anthropic/claude-sonnet',
    ]);
    expect(ids(sortModels(models, 'newest', 'desc'))).toEqual([
      'mystery/unpriced',
      'openai/gpt-4o',
      'openai/gpt-4o:free',
      'anthropic/claude-sonnet',
      'google/gemini-flash:batch',
    ]);
  });
});

describe('filters in the URL', () => {
  it('round-trips every filter and keeps other parameters', () => {
    const filters: CatalogFilters = {
      search: 'gpt',
      author: 'openai',
      inputModality: 'image',
      outputModality: 'text',
      variant: 'free',
      parameters: ['tools', 'response_format'],
      priceMinimum: '0.5',
      priceMaximum: '3',
      priceBasis: 'completion',
      sort: 'prompt',
      direction: 'desc',
    };
    const search = writeFilters(new URLSearchParams('model=openai%2Fgpt-4o&profile=demo'), filters);
    expect(search.get('model')).toBe('openai/gpt-4o');
    expect(search.get('profile')).toBe('demo');
    expect(search.get('q')).toBe('gpt');
    expect(readFilters(search)).toEqual(filters);
  });

  it('leaves defaults out of the URL and survives nonsense', () => {
    expect(writeFilters(new URLSearchParams(), defaultFilters).toString()).toBe('');
    const filters = readFilters(new URLSearchParams('sort=bogus&dir=sideways&price=nope'));
    expect(filters.sort).toBe('name');
    expect(filters.direction).toBe('asc');
    expect(filters.priceBasis).toBe('prompt');
  });

  it('starts context and newest sorts with the largest first', () => {
    expect(readFilters(new URLSearchParams('sort=newest')).direction).toBe('desc');
    expect(countActiveFilters({ ...defaultFilters, search: 'x' })).toBe(0);
    expect(countActiveFilters({ ...defaultFilters, author: 'a', parameters: ['tools'] })).toBe(2);
  });
});

describe('collectFacets', () => {
  it('lists authors, modalities, variants and parameters present in the catalog', () => {
    const facets = collectFacets(models.map((entry) => entry.model));
    expect(facets.authors).toEqual(['anthropic', 'google', 'mystery', 'openai']);
    expect(facets.inputModalities).toEqual(['image', 'text']);
    expect(facets.variants).toEqual(['batch', 'free']);
    expect(facets.parameters).toContain('response_format');
  });
});

describe('price bounds as typed', () => {
  it('reads a decimal comma as a decimal point, not as a thousands separator', () => {
    expect(ids(withFilters({ priceMinimum: '2,6' }))).toEqual(['anthropic/claude-sonnet']);
    expect(readPriceBound('1,5')).toEqual({ value: { digits: 15n, scale: 1 }, problem: null });
    expect(readPriceBound('$ 0,25').value).toEqual({ digits: 25n, scale: 2 });
  });

  it('reads thousands separators when they cannot be decimals, and asks when they could be', () => {
    expect(readPriceBound('1,000.5').value).toEqual({ digits: 10005n, scale: 1 });
    expect(readPriceBound('1,000,000').value).toEqual({ digits: 1000000n, scale: 0 });
    expect(readPriceBound('1,000')).toEqual({
      value: null,
      problem: expect.stringContaining('could mean 1000 or 1.000') as unknown as string,
    });
  });

  it('says what is wrong with text that is not an amount', () => {
    for (const text of ['cheap', '-1', '1,2,3', '1e3', '1.2.3']) {
      expect(readPriceBound(text).problem, text).toMatch(/is not an amount/);
    }
    expect(readPriceBound('  ')).toEqual({ value: null, problem: null });
  });

  it('explains a range whose From is above its To', () => {
    expect(priceRangeProblem('20', '5')).toMatch(/From \(\$20\) is above To \(\$5\)/);
    expect(priceRangeProblem('5', '20')).toBeNull();
    expect(priceRangeProblem('5', '5')).toBeNull();
    expect(priceRangeProblem('20', '')).toBeNull();
  });
});

describe('sanitizeFilters', () => {
  const facets = collectFacets(models.map((entry) => entry.model));

  it('drops values no model has and reports them, keeping the rest', () => {
    const { filters, ignored } = sanitizeFilters(
      readFilters(
        new URLSearchParams('in=foo&variant=nope&author=openai&params=tools,bogus&out=text'),
      ),
      facets,
    );
    expect(ignored).toEqual([
      { name: 'variant', value: 'nope' },
      { name: 'params', value: 'bogus' },
      { name: 'in', value: 'foo' },
    ]);
    expect(filters).toMatchObject({
      inputModality: null,
      variant: 'any',
      author: 'openai',
      parameters: ['tools'],
      outputModality: 'text',
    });
    expect(countActiveFilters(filters)).toBe(3);
  });

  it('keeps the special variants', () => {
    for (const variant of ['any', 'none', 'free', 'batch']) {
      expect(sanitizeFilters({ ...defaultFilters, variant }, facets).ignored).toEqual([]);
    }
  });
});
