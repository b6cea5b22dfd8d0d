/** The Responses choice from the send to the raw view: what is sent, left out and shown. */
import { toResponsesRequest } from '../../../contract/responses-form';
import { buildChatRequest } from './build-request';
import { createMessage } from './conversation-state';
import { defaultParameters } from './playground-types';
import { gatewayRequestText } from './raw-exchange';
import { toolModel } from './test-fixtures';

const input = {
  profile: 'demo-account',
  model: toolModel.id,
  catalogModel: toolModel,
  systemPrompt: 'Be brief.',
  messages: [createMessage('user', 'Hello')],
  parameters: { ...defaultParameters, max_tokens: 64, stop: ['END'], seed: 3 },
  toolsText: '',
};

describe('buildChatRequest with the Responses API', () => {
  it('marks the body and leaves out stop and seed, saying why', () => {
    const result = buildChatRequest({ ...input, api: 'responses' });
    if (!result.ok) throw new Error(result.problems.join(' '));
    expect(result.body.api).toBe('responses');
    expect(result.body.request).not.toHaveProperty('stop');
    expect(result.body.request).not.toHaveProperty('seed');
    expect(result.body.request.max_tokens).toBe(64);
    expect(result.notes).toEqual([
      'stop is not sent: the Responses form has no stop field.',
      'seed is not sent: the Responses form has no seed field.',
    ]);
  });

  it('sends chat completions as before when that API is chosen', () => {
    const result = buildChatRequest({ ...input, api: 'chat_completions' });
    if (!result.ok) throw new Error(result.problems.join(' '));
    expect(result.body).not.toHaveProperty('api');
    expect(result.body.request).toMatchObject({ stop: ['END'], seed: 3 });
  });
});

describe('toResponsesRequest', () => {
  it('turns tool calls and their results into function_call items, tools flat', () => {
    const { body } = toResponsesRequest({
      model: 'sim/chat-standard',
      messages: [
        {
          role: 'user',
          content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } }],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
          ],
        },
        { role: 'tool', content: 'Sunny', tool_call_id: 'call_1' },
      ],
      tools: [
        { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } },
      ],
    });
    expect(body.input).toEqual([
      {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_image', image_url: 'data:image/png;base64,AA' }],
      },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'Sunny' },
    ]);
    expect(body.tools).toEqual([
      { type: 'function', name: 'get_weather', parameters: { type: 'object' } },
    ]);
    expect(body.store).toBe(false);
  });
});

describe('the raw view of a Responses run', () => {
  it('shows the gateway request the BFF makes: /v1/responses with the Responses body', () => {
    const result = buildChatRequest({ ...input, api: 'responses' });
    if (!result.ok) throw new Error(result.problems.join(' '));
    const text = gatewayRequestText('http://127.0.0.1:8787', result.body, 'sk-…a1b2');
    expect(text.split('\n')[0]).toBe('POST http://127.0.0.1:8787/v1/responses');
    expect(text).toContain('"instructions": "Be brief."');
    expect(text).toContain('"max_output_tokens": 64');
  });
});

describe('toResponsesRequest', () => {
  it('writes a named tool choice and a JSON schema flat, as the Responses form has them', () => {
    const schema = { type: 'object' };
    const { body } = toResponsesRequest({
      model: 'm',
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [{ type: 'function', function: { name: 'get_weather' } }],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      response_format: { type: 'json_schema', json_schema: { name: 'weather', schema } },
    });
    expect(body.tool_choice).toEqual({ type: 'function', name: 'get_weather' });
    expect(body.text).toEqual({ format: { type: 'json_schema', name: 'weather', schema } });
  });
});
