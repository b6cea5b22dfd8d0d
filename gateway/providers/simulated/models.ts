/**
 * The simulated provider's models: what the embedded gateway lists with no network. Prices are
 * real-looking and non-zero, so budgets, admission and settlement behave as they would with a
 * paid upstream; `:free` and `:batch` are complete ids of their own, not suffixes to strip.
 */
import type { CatalogModel } from '../../catalog/catalog';

const textParameters = ['max_tokens', 'temperature', 'top_p', 'stop', 'seed', 'stream'];
const toolParameters = [...textParameters, 'tools', 'tool_choice', 'response_format'];
/** A reasoning model: it thinks before it answers, and says so in every form. */
const reasoningParameters = [...toolParameters, 'reasoning', 'include_reasoning'];

export const SIMULATED_PROVIDER_ID = 'simulated';

const base = (
  model: Omit<CatalogModel, 'routes' | 'outputModalities'>,
  outputModalities: string[] = ['text'],
): CatalogModel => ({
  ...model,
  outputModalities,
  routes: [
    {
      providerId: SIMULATED_PROVIDER_ID,
      upstreamModel: model.id,
      promptNanos: model.promptNanos,
      completionNanos: model.completionNanos,
      contextLength: model.contextLength,
      maxCompletionTokens: model.maxCompletionTokens,
      inputModalities: model.inputModalities,
      supportedParameters: model.supportedParameters,
    },
  ],
});

export const simulatedModels: CatalogModel[] = [
  base({
    id: 'sim/echo-mini',
    name: 'Sim: Echo Mini',
    description:
      'Small, fast simulated model. Deterministic text built from your conversation; no tools, text only.',
    created: 1_767_225_600,
    contextLength: 8_192,
    maxCompletionTokens: 2_048,
    promptNanos: 100,
    completionNanos: 400,
    inputModalities: ['text'],
    supportedParameters: textParameters,
  }),
  base({
    id: 'sim/chat-standard',
    name: 'Sim: Chat Standard',
    description:
      'General simulated chat model with tool calling. Same seed, same text; streams at the configured rate.',
    created: 1_772_323_200,
    contextLength: 32_768,
    maxCompletionTokens: 4_096,
    promptNanos: 1_000,
    completionNanos: 3_000,
    inputModalities: ['text'],
    supportedParameters: toolParameters,
  }),
  base({
    id: 'sim/chat-standard:free',
    name: 'Sim: Chat Standard (free)',
    description: 'The free variant of Sim: Chat Standard. Costs nothing; same behaviour.',
    created: 1_772_323_200,
    contextLength: 32_768,
    maxCompletionTokens: 4_096,
    promptNanos: 0,
    completionNanos: 0,
    inputModalities: ['text'],
    supportedParameters: toolParameters,
  }),
  base({
    id: 'sim/chat-standard:batch',
    name: 'Sim: Chat Standard (batch)',
    description: 'The batch variant of Sim: Chat Standard, at half the price.',
    created: 1_772_323_200,
    contextLength: 32_768,
    maxCompletionTokens: 4_096,
    promptNanos: 500,
    completionNanos: 1_500,
    inputModalities: ['text'],
    supportedParameters: toolParameters,
  }),
  base({
    id: 'sim/vision-pro',
    name: 'Sim: Vision Pro',
    description:
      'Simulated multimodal model: accepts images in content parts and describes what it received. Tool calling.',
    created: 1_775_001_600,
    contextLength: 131_072,
    maxCompletionTokens: 8_192,
    promptNanos: 3_000,
    completionNanos: 15_000,
    inputModalities: ['text', 'image'],
    supportedParameters: toolParameters,
  }),
  base({
    id: 'sim/reasoner-large',
    name: 'Sim: Reasoner Large',
    description:
      'Large, expensive simulated reasoning model with a long context: it reasons (with a signature) before it answers, for trying reasoning, budgets and admission.',
    created: 1_777_593_600,
    contextLength: 200_000,
    maxCompletionTokens: 16_384,
    promptNanos: 15_000,
    completionNanos: 75_000,
    inputModalities: ['text'],
    supportedParameters: reasoningParameters,
  }),
  base(
    {
      id: 'sim/embed-small',
      name: 'Sim: Embed Small',
      description:
        'Simulated embedding model: 256-dimension unit vectors, the same for the same text and close for close texts. Send it to POST /v1/embeddings.',
      created: 1_777_593_600,
      // Per input, as embedding APIs bound each text.
      contextLength: 8_192,
      maxCompletionTokens: 0,
      promptNanos: 20,
      completionNanos: 0,
      inputModalities: ['text'],
      supportedParameters: ['dimensions', 'encoding_format', 'user'],
    },
    ['embeddings'],
  ),
];
