/** The catalog from the simulated models plus the providers file, with routes in file order. */
import path from 'node:path';
import { loadProvidersFile } from '../providers/providers-file';
import { buildCatalogModels } from './catalog-builder';
import { toWireEntry } from './catalog';

const example = loadProvidersFile(
  path.join(import.meta.dirname, '..', '..', 'providers.example.json'),
  {
    OPENAI_API_KEY: 'a',
    ANTHROPIC_API_KEY: 'b',
    GEMINI_API_KEY: 'c',
    OPENROUTER_API_KEY: 'd',
    VLLM_API_KEY: '',
    LLAMA_CPP_API_KEY: '',
  },
);

describe('the catalog built from the providers file', () => {
  it('is the simulated models alone without a file', () => {
    const models = buildCatalogModels(null);
    expect(models.length).toBeGreaterThan(0);
    expect(
      models.every((model) => model.routes.map((route) => route.providerId).join() === 'simulated'),
    ).toBe(true);
  });

  it('lists a model served by two providers once, with both routes in file order and their own prices', () => {
    const models = buildCatalogModels(example);
    const mini = models.filter((model) => model.id === 'openai/gpt-4o-mini');
    expect(mini).toHaveLength(1);
    expect(mini[0]!.routes.map((route) => [route.providerId, route.upstreamModel])).toEqual([
      ['openai', 'gpt-4o-mini'],
      ['openrouter', 'openai/gpt-4o-mini'],
    ]);
    expect(toWireEntry(mini[0]!)).toMatchObject({
      id: 'openai/gpt-4o-mini',
      pricing: { prompt: '0.00000015', completion: '0.0000006' },
      providers: ['openai', 'openrouter'],
    });
    // The simulated models stay unless the file says otherwise.
    expect(models.some((model) => model.id === 'sim/chat-standard')).toBe(true);
  });

  it('drops the simulated models when the file asks', () => {
    const models = buildCatalogModels({ ...example, includeSimulatedModels: false });
    expect(models.some((model) => model.id.startsWith('sim/'))).toBe(false);
    expect(models.some((model) => model.id === 'anthropic/claude-sonnet-4.5')).toBe(true);
  });
});
