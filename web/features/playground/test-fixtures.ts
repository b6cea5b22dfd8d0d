/** Catalog entries shaped like the embedded gateway's simulated models, for tests. */
import type { CatalogModel } from '../../../contract/workbench-api';

export function catalogModel(overrides: Partial<CatalogModel> & { id: string }): CatalogModel {
  return {
    name: overrides.id,
    author: overrides.id.split('/')[0] ?? '',
    variant: null,
    description: '',
    created: null,
    context_length: 32_768,
    prompt_price: '0.000001',
    completion_price: '0.000003',
    input_modalities: ['text'],
    output_modalities: ['text'],
    supported_parameters: ['max_tokens', 'temperature', 'top_p', 'stop', 'seed', 'stream'],
    raw: {},
    ...overrides,
  };
}

export const textModel = catalogModel({ id: 'sim/echo-mini', supported_parameters: ['max_tokens', 'stop', 'stream'] });
export const toolModel = catalogModel({
  id: 'sim/chat-standard',
  supported_parameters: ['max_tokens', 'temperature', 'top_p', 'stop', 'seed', 'stream', 'tools', 'tool_choice'],
});
export const visionModel = catalogModel({
  id: 'sim/vision-pro',
  input_modalities: ['text', 'image'],
  prompt_price: '0.000003',
  completion_price: '0.000015',
  supported_parameters: ['max_tokens', 'temperature', 'top_p', 'stop', 'seed', 'stream', 'tools'],
});
