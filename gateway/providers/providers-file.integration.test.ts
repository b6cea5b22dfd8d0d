/**
 * The providers file: the shipped example is valid, and every way a file can be wrong stops
 * start-up with the file, the JSON path and what is wrong, never a stack trace or a key.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigurationError, loadGatewayConfig } from '../config';
import { tempFolder } from '../../testing/gateway-support';
import { loadProvidersFile } from './providers-file';

const example = path.join(import.meta.dirname, '..', '..', 'providers.example.json');
const exampleEnvironment = {
  OPENAI_API_KEY: 'up-openai',
  ANTHROPIC_API_KEY: 'up-anthropic',
  GEMINI_API_KEY: 'up-gemini',
  OPENROUTER_API_KEY: 'up-openrouter',
  VLLM_API_KEY: '',
  LLAMA_CPP_API_KEY: '',
};

const validModel = {
  id: 'acme/model-one',
  upstream_model: 'model-one',
  name: 'Acme: Model One',
  context_length: 8192,
  max_completion_tokens: 1024,
  pricing: { prompt: '0.000001', completion: '0.000002' },
  input_modalities: ['text'],
  supported_parameters: ['max_tokens'],
};
const validProvider = {
  id: 'acme',
  kind: 'openai-compatible',
  base_url: 'http://127.0.0.1:9/v1',
  api_key_env: 'ACME_KEY',
  models: [validModel],
};

function writeFile(content: unknown): string {
  const file = path.join(tempFolder('providers-'), 'providers.json');
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('the providers file', () => {
  it('ships an example that loads, with each provider in file order and the fallback model twice', () => {
    const loaded = loadProvidersFile(example, exampleEnvironment);
    expect(loaded.order).toEqual([
      'openai',
      'anthropic',
      'gemini',
      'openrouter',
      'local-vllm',
      'local-llama-cpp',
    ]);
    expect(loaded.upstream.find((provider) => provider.id === 'gemini')?.inlineImageUrls).toBe(
      true,
    );
    const servingMini = loaded.upstream.filter((provider) =>
      provider.models.some((model) => model.id === 'openai/gpt-4o-mini'),
    );
    expect(servingMini.map((provider) => provider.id)).toEqual(['openai', 'openrouter']);
    // 0.00000015 USD per token is 150 nanos, exactly.
    expect(servingMini[0]!.models[0]!.promptNanos).toBe(150);
    expect(loaded.upstream.find((provider) => provider.id === 'openai')?.apiKey).toBe('up-openai');
    // docs/routing.md's alias and preset, checked against the example's models.
    expect(loaded.aliases?.map((alias) => alias.id)).toEqual(['team/coder', 'team/cheap']);
    expect(loaded.presets?.map((preset) => preset.id)).toEqual(['@preset/reviewer']);
  });

  it.each([
    [
      'a model without a price',
      {
        providers: [
          { ...validProvider, models: [{ ...validModel, pricing: { prompt: '0.000001' } }] },
        ],
      },
      'providers[0].models[0].pricing.completion',
    ],
    [
      'a price that is not a decimal string',
      {
        providers: [
          {
            ...validProvider,
            models: [{ ...validModel, pricing: { prompt: '1e-6', completion: '0.000002' } }],
          },
        ],
      },
      'providers[0].models[0].pricing.prompt',
    ],
    ['an unknown kind', { providers: [{ ...validProvider, kind: 'azure' }] }, 'providers[0].kind'],
    [
      'a base URL that is not http(s)',
      { providers: [{ ...validProvider, base_url: 'ftp://example.com' }] },
      'providers[0].base_url',
    ],
    [
      'a key in the headers',
      { providers: [{ ...validProvider, headers: { Authorization: 'Bearer x' } }] },
      'providers[0].headers',
    ],
    [
      'a model id without an author',
      { providers: [{ ...validProvider, models: [{ ...validModel, id: 'model-one' }] }] },
      'providers[0].models[0].id',
    ],
    [
      'a provider id used twice',
      { providers: [validProvider, validProvider] },
      "providers[1].id: 'acme' is used twice",
    ],
    [
      'a first-event timeout of zero',
      { providers: [{ ...validProvider, timeouts: { first_event_ms: 0 } }] },
      'providers[0].timeouts.first_event_ms',
    ],
    [
      'a total timeout longer than an hour',
      { providers: [{ ...validProvider, timeouts: { total_ms: 3_600_001 } }] },
      'providers[0].timeouts.total_ms',
    ],
    [
      'a retry policy with an unknown field',
      { providers: [{ ...validProvider, retry: { attempts: 3 } }] },
      'providers[0].retry',
    ],
    [
      'an embedding model on an anthropic provider',
      {
        providers: [
          {
            ...validProvider,
            kind: 'anthropic',
            models: [{ ...validModel, output_modalities: ['embeddings'] }],
          },
        ],
      },
      "providers[0].models[0]: 'acme/model-one' is an embedding model, but kind 'anthropic' has no embeddings API",
    ],
    [
      'one id as an embedding model at one provider and a chat model at another',
      {
        providers: [
          { ...validProvider, models: [{ ...validModel, output_modalities: ['embeddings'] }] },
          { ...validProvider, id: 'other' },
        ],
      },
      "providers[1].models[0]: 'acme/model-one' has output modalities text here and embeddings",
    ],
    [
      'an alias of a model the catalog does not have',
      {
        providers: [validProvider],
        aliases: [{ id: 'team/coder', models: ['acme/model-one', 'acme/model-two'] }],
      },
      "aliases[0].models[1]: 'acme/model-two' is not a catalog model",
    ],
    [
      'an alias named like a catalog model',
      {
        providers: [validProvider],
        aliases: [{ id: 'acme/model-one', models: ['acme/model-one'] }],
      },
      "aliases[0].id: 'acme/model-one' is a catalog model id",
    ],
    [
      'a preset whose fallback is neither a model nor an alias',
      {
        providers: [validProvider],
        presets: [{ id: '@preset/review', model: 'acme/model-one', models: ['team/nobody'] }],
      },
      "presets[0].models[0]: 'team/nobody' is neither a catalog model nor an alias",
    ],
    [
      'a preset id without its prefix',
      { providers: [validProvider], presets: [{ id: 'review', model: 'acme/model-one' }] },
      'presets[0].id',
    ],
  ])('refuses %s, naming the file and the JSON path', (_case, content, expected) => {
    const file = writeFile(content);
    expect(() => loadProvidersFile(file, { ACME_KEY: 'x' })).toThrow(file);
    expect(() => loadProvidersFile(file, { ACME_KEY: 'x' })).toThrow(expected);
  });

  it('reads aliases and presets that name what the catalog has', () => {
    const loaded = loadProvidersFile(
      writeFile({
        providers: [validProvider],
        aliases: [{ id: 'team/coder', models: ['acme/model-one', 'sim/chat-standard'] }],
        presets: [
          {
            id: '@preset/review',
            model: 'team/coder',
            provider: { sort: 'price' },
            system: 'Review.',
            parameters: { temperature: 0.2 },
          },
        ],
      }),
      { ACME_KEY: 'x' },
    );
    expect(loaded.aliases?.map((alias) => alias.id)).toEqual(['team/coder']);
    expect(loaded.presets?.[0]).toMatchObject({ model: 'team/coder', system: 'Review.' });
  });

  it('reads the first-event and total deadlines beside the other timeouts, with defaults for the ones left out', () => {
    const file = writeFile({
      providers: [
        { ...validProvider, timeouts: { idle_ms: 1_000, first_event_ms: 2_000, total_ms: 3_000 } },
        { ...validProvider, id: 'plain' },
      ],
    });
    const [tuned, plain] = loadProvidersFile(file, { ACME_KEY: 'x' }).upstream;
    expect(tuned!.timeouts).toEqual({
      connectMs: 5_000,
      firstByteMs: 60_000,
      idleMs: 1_000,
      firstEventMs: 2_000,
      totalMs: 3_000,
    });
    expect(plain!.timeouts).toMatchObject({ firstEventMs: 600_000, totalMs: 1_800_000 });
  });

  it('marks an embedding model by output_modalities or architecture.output_modalities', () => {
    const file = writeFile({
      providers: [
        {
          ...validProvider,
          models: [
            { ...validModel, output_modalities: ['embeddings'] },
            {
              ...validModel,
              id: 'acme/model-two',
              architecture: { output_modalities: ['embeddings'] },
            },
            { ...validModel, id: 'acme/model-three' },
          ],
        },
      ],
    });
    const models = loadProvidersFile(file, { ACME_KEY: 'x' }).upstream[0]!.models;
    expect(models.map((model) => model.outputModalities)).toEqual([
      ['embeddings'],
      ['embeddings'],
      ['text'],
    ]);
  });

  it('says which variable is missing when a provider key is not set', () => {
    const file = writeFile({ providers: [validProvider] });
    expect(() => loadProvidersFile(file, {})).toThrow(
      /provider 'acme' reads its upstream key from the environment variable ACME_KEY, which is not set/,
    );
  });

  it('stops the gateway configuration with the variable name, for a file that is not JSON', () => {
    const file = writeFile('{ "providers": [');
    expect(() => loadGatewayConfig({ GATEWAY_PROVIDERS: file })).toThrow(ConfigurationError);
    expect(() => loadGatewayConfig({ GATEWAY_PROVIDERS: file })).toThrow(
      /^GATEWAY_PROVIDERS: .*providers\.json: not valid JSON/,
    );
  });

  it('leaves the simulated models alone without the variable', () => {
    expect(loadGatewayConfig({}).providers).toBeNull();
  });
});
