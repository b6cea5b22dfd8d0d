/** Catalog entries shaped like the embedded gateway's simulated models, for tests. */
import type { CatalogModel } from '../../../contract/workbench-api';
import type { RunRecord } from './playground-types';

export function catalogModel(overrides: Partial<CatalogModel> & { id: string }): CatalogModel {
  return {
    name: overrides.id,
    author: overrides.id.split('/')[0] ?? '',
    variant: null,
    description: '',
    created: null,
    context_length: 32_768,
    max_completion_tokens: 8_192,
    prompt_price: '0.000001',
    completion_price: '0.000003',
    input_modalities: ['text'],
    output_modalities: ['text'],
    supported_parameters: ['max_tokens', 'temperature', 'top_p', 'stop', 'seed', 'stream'],
    providers: ['simulated'],
    raw: {},
    ...overrides,
  };
}

export const textModel = catalogModel({
  id: 'sim/echo-mini',
  supported_parameters: ['max_tokens', 'stop', 'stream'],
});
export const toolModel = catalogModel({
  id: 'sim/chat-standard',
  supported_parameters: [
    'max_tokens',
    'temperature',
    'top_p',
    'stop',
    'seed',
    'stream',
    'tools',
    'tool_choice',
    'response_format',
  ],
});
export const visionModel = catalogModel({
  id: 'sim/vision-pro',
  input_modalities: ['text', 'image'],
  prompt_price: '0.000003',
  completion_price: '0.000015',
  supported_parameters: ['max_tokens', 'temperature', 'top_p', 'stop', 'seed', 'stream', 'tools'],
});

/** A finished, streamed run on `sim/chat-standard` with the gateway's usage and cost. */
export const finishedRun: RunRecord = {
  model: 'sim/chat-standard',
  status: 'done',
  streamed: true,
  startedAt: 0,
  firstTokenMs: 200,
  totalMs: 1200,
  cfRay: '0123456789abcdef-AMS',
  upstreamStatus: 200,
  meta: null,
  finishReason: 'stop',
  usage: { prompt_tokens: 10, completion_tokens: 50, total_tokens: 60, cost: 0.0002 },
  error: null,
  request: {
    profile: 'p',
    request: { model: 'sim/chat-standard', messages: [{ role: 'user', content: 'Hi' }] },
  },
  response: null,
};
