import {
  buildChatRequest,
  exampleToolsText,
  parseToolsText,
  toWireMessages,
} from './build-request';
import { createMessage } from './conversation-state';
import { defaultParameters, type Parameters } from './playground-types';
import { parameterSupport } from './parameters';
import { finishedRun, textModel, toolModel, visionModel } from './test-fixtures';

const parameters: Parameters = {
  ...defaultParameters,
  max_tokens: 64,
  temperature: 0.5,
  top_p: 0.9,
  stop: ['END'],
  seed: 3,
};

describe('parameter support', () => {
  it('follows the catalog’s supported_parameters and says why a parameter is disabled', () => {
    expect(parameterSupport('temperature', toolModel)).toEqual({ supported: true, reason: null });
    const unsupported = parameterSupport('temperature', textModel);
    expect(unsupported.supported).toBe(false);
    expect(unsupported.reason).toContain('sim/echo-mini does not list “temperature”');
  });

  it('treats a model without a listed parameter set as taking them all', () => {
    expect(parameterSupport('seed', undefined).supported).toBe(true);
  });
});

describe('buildChatRequest', () => {
  const messages = [createMessage('user', 'Hello')];

  it('sends the set, supported parameters and the system prompt first', () => {
    const result = buildChatRequest({
      profile: 'demo-account',
      model: toolModel.id,
      catalogModel: toolModel,
      systemPrompt: 'Be brief.',
      messages,
      parameters,
      toolsText: '',
    });
    expect(result).toEqual({
      ok: true,
      notes: [],
      body: {
        profile: 'demo-account',
        request: {
          model: 'sim/chat-standard',
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'Hello' },
          ],
          max_tokens: 64,
          temperature: 0.5,
          top_p: 0.9,
          stop: ['END'],
          seed: 3,
          stream: true,
        },
      },
    });
  });

  it('leaves out unsupported parameters and tools, with a note for each', () => {
    const result = buildChatRequest({
      profile: 'p',
      model: textModel.id,
      catalogModel: textModel,
      systemPrompt: '',
      messages,
      parameters,
      toolsText: exampleToolsText,
    });
    if (!result.ok) throw new Error(result.problems.join());
    expect(Object.keys(result.body.request).sort()).toEqual([
      'max_tokens',
      'messages',
      'model',
      'stop',
      'stream',
    ]);
    expect(result.notes).toHaveLength(4);
    expect(result.notes.join(' ')).toMatch(/temperature is not sent/);
    expect(result.notes.join(' ')).toMatch(/Tools are not sent/);
  });

  it('sends the tools to a model the catalog does not list, and never says it "does not list tools"', () => {
    const result = buildChatRequest({
      profile: 'p',
      model: 'acme/brand-new',
      catalogModel: undefined,
      systemPrompt: '',
      messages,
      parameters: defaultParameters,
      toolsText: exampleToolsText,
    });
    if (!result.ok) throw new Error(result.problems.join());
    expect(result.body.request.tools).toHaveLength(1);
    expect(result.notes.join(' ')).not.toMatch(/does not list/);
  });

  it('refuses a tool message that answers no tool call', () => {
    const result = buildChatRequest({
      profile: 'p',
      model: toolModel.id,
      catalogModel: toolModel,
      systemPrompt: '',
      messages: [...messages, createMessage('tool', '{"temperature_c": 21}')],
      parameters: defaultParameters,
      toolsText: '',
    });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.problems.join()).toMatch(/A tool message needs the tool call it answers/);
  });

  it('refuses out-of-range values and invalid tools with words a person can act on', () => {
    const result = buildChatRequest({
      profile: 'p',
      model: toolModel.id,
      catalogModel: toolModel,
      systemPrompt: '',
      messages,
      parameters: { ...parameters, temperature: 3, max_tokens: 0 },
      toolsText: '[{"type": "function"}]',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toContain('temperature must be between 0 and 2.');
    expect(result.problems).toContain('max_tokens must be a whole number above 0.');
    expect(result.problems.some((problem) => problem.startsWith('Tools must be an array'))).toBe(
      true,
    );
  });

  it('holds max_tokens to the most the model can produce, as the gateway would', () => {
    const over = buildChatRequest({
      profile: 'p',
      model: toolModel.id,
      catalogModel: toolModel,
      systemPrompt: '',
      messages,
      parameters: { ...parameters, max_tokens: toolModel.max_completion_tokens! + 1 },
      toolsText: '',
    });
    expect(over.ok).toBe(false);
    if (over.ok) return;
    expect(over.problems).toContain(
      `max_tokens is ${toolModel.max_completion_tokens! + 1}, more than ${toolModel.id} can produce (${toolModel.max_completion_tokens}).`,
    );
    const most = buildChatRequest({
      profile: 'p',
      model: toolModel.id,
      catalogModel: toolModel,
      systemPrompt: '',
      messages,
      parameters: { ...parameters, max_tokens: toolModel.max_completion_tokens },
      toolsText: '',
    });
    expect(most.ok).toBe(true);
  });

  it('sends images as image_url parts, and refuses them for a text-only model', () => {
    const withImage = [
      createMessage('user', 'What is this?', { images: ['data:image/png;base64,AAAA'] }),
    ];
    const accepted = buildChatRequest({
      profile: 'p',
      model: visionModel.id,
      catalogModel: visionModel,
      systemPrompt: '',
      messages: withImage,
      parameters: defaultParameters,
      toolsText: '',
    });
    if (!accepted.ok) throw new Error(accepted.problems.join());
    expect(accepted.body.request.messages[0]?.content).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
    ]);
    const refused = buildChatRequest({
      profile: 'p',
      model: textModel.id,
      catalogModel: textModel,
      systemPrompt: '',
      messages: withImage,
      parameters: defaultParameters,
      toolsText: '',
    });
    expect(refused.ok).toBe(false);
  });

  it('writes tool calls and tool results in the chat-completion form', () => {
    const call = {
      id: 'call_1',
      type: 'function' as const,
      function: { name: 'get_weather', arguments: '{}' },
    };
    expect(
      toWireMessages('', [
        createMessage('assistant', '', { toolCalls: [call] }),
        createMessage('tool', '{"ok":true}', { toolCallId: 'call_1', name: 'get_weather' }),
      ]),
    ).toEqual([
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', content: '{"ok":true}', tool_call_id: 'call_1' },
    ]);
  });

  it('leaves a failed turn, and the user turn it answered, out of later requests', () => {
    const failed = createMessage('assistant', '', {
      run: { ...finishedRun, status: 'error', finishReason: null, usage: null },
    });
    const result = buildChatRequest({
      profile: 'demo-account',
      model: toolModel.id,
      catalogModel: toolModel,
      systemPrompt: '',
      messages: [createMessage('user', 'Hello'), failed, createMessage('user', 'Hello again')],
      parameters: defaultParameters,
      toolsText: '',
    });
    if (!result.ok) throw new Error(result.problems.join(' '));
    // Never resent silently: the note says which turn waits for Retry or Discard.
    expect(result.body.request.messages).toEqual([{ role: 'user', content: 'Hello again' }]);
    expect(result.notes).toContain('Turn 1 is not sent: its reply failed. Retry or Discard it.');
  });

  it('stops a request over the workbench server’s body limit instead of sending it', () => {
    const result = buildChatRequest({
      profile: 'demo-account',
      model: toolModel.id,
      catalogModel: toolModel,
      systemPrompt: '',
      messages: [createMessage('user', 'x'.repeat(9 * 1024 * 1024))],
      parameters: defaultParameters,
      toolsText: '',
    });
    expect(result).toEqual({
      ok: false,
      problems: [
        'The request is 9.0 MiB, over the workbench server’s 8 MiB limit: it would be refused (413). Shorten the long message or remove images.',
      ],
    });
  });

  it('parses the example tools', () => {
    expect(parseToolsText(exampleToolsText).tools?.[0]?.function.name).toBe('get_weather');
    expect(parseToolsText('{').problem).toMatch(/not valid JSON/);
  });
});

describe('buildChatRequest with tool_choice and response_format', () => {
  const base = {
    profile: 'demo-account',
    model: toolModel.id,
    catalogModel: toolModel,
    systemPrompt: '',
    messages: [createMessage('user', 'Weather in Oslo?')],
    toolsText: exampleToolsText,
  };

  it('sends neither while they are left at the default', () => {
    const result = buildChatRequest({ ...base, parameters: defaultParameters });
    if (!result.ok) throw new Error(result.problems.join(' '));
    expect(result.body.request).not.toHaveProperty('tool_choice');
    expect(result.body.request).not.toHaveProperty('response_format');
  });

  it('sends a mode as is and a named tool as the function to call', () => {
    const mode = buildChatRequest({
      ...base,
      parameters: { ...defaultParameters, tool_choice: 'required' },
    });
    if (!mode.ok) throw new Error(mode.problems.join(' '));
    expect(mode.body.request.tool_choice).toBe('required');
    const named = buildChatRequest({
      ...base,
      parameters: { ...defaultParameters, tool_choice: 'get_weather' },
    });
    if (!named.ok) throw new Error(named.problems.join(' '));
    expect(named.body.request.tool_choice).toEqual({
      type: 'function',
      function: { name: 'get_weather' },
    });
  });

  it('refuses a tool the tools do not define, and leaves tool_choice out without tools', () => {
    const parameters = { ...defaultParameters, tool_choice: 'get_time' };
    expect(buildChatRequest({ ...base, parameters })).toEqual({
      ok: false,
      problems: ['tool_choice names “get_time”, which the tools do not define.'],
    });
    const withoutTools = buildChatRequest({
      ...base,
      toolsText: '',
      parameters: { ...defaultParameters, tool_choice: 'auto' },
    });
    if (!withoutTools.ok) throw new Error(withoutTools.problems.join(' '));
    expect(withoutTools.body.request).not.toHaveProperty('tool_choice');
    expect(withoutTools.notes).toEqual(['tool_choice is not sent: the request sends no tools.']);
  });

  it('sends a JSON schema named by its title, and stops on one that is not JSON', () => {
    const schema = { title: 'weather', type: 'object', properties: { c: { type: 'number' } } };
    const result = buildChatRequest({
      ...base,
      parameters: {
        ...defaultParameters,
        response_format: 'json_schema',
        response_schema: JSON.stringify(schema),
      },
    });
    if (!result.ok) throw new Error(result.problems.join(' '));
    expect(result.body.request.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'weather', schema },
    });
    const broken = buildChatRequest({
      ...base,
      parameters: {
        ...defaultParameters,
        response_format: 'json_schema',
        response_schema: '{"type": ',
      },
    });
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.problems[0]).toMatch(/^The JSON schema is not valid JSON: /);
    const json = buildChatRequest({
      ...base,
      parameters: { ...defaultParameters, response_format: 'json_object' },
    });
    if (!json.ok) throw new Error(json.problems.join(' '));
    expect(json.body.request.response_format).toEqual({ type: 'json_object' });
  });

  it('sends reasoning_effort to a model listing reasoning, and says why not to another', () => {
    const reasoner = {
      ...toolModel,
      supported_parameters: [...toolModel.supported_parameters, 'reasoning'],
    };
    const parameters = { ...defaultParameters, reasoning_effort: 'low' as const };
    const sent = buildChatRequest({ ...base, catalogModel: reasoner, parameters });
    if (!sent.ok) throw new Error(sent.problems.join(' '));
    expect(sent.body.request.reasoning_effort).toBe('low');
    const left = buildChatRequest({ ...base, parameters });
    if (!left.ok) throw new Error(left.problems.join(' '));
    expect(left.body.request).not.toHaveProperty('reasoning_effort');
    expect(left.notes).toContain(
      'reasoning_effort is not sent: sim/chat-standard does not list “reasoning” in its supported parameters.',
    );
  });

  it('leaves response_format out for a model that does not list it, saying why', () => {
    const result = buildChatRequest({
      ...base,
      model: textModel.id,
      catalogModel: textModel,
      toolsText: '',
      parameters: { ...defaultParameters, response_format: 'json_object' },
    });
    if (!result.ok) throw new Error(result.problems.join(' '));
    expect(result.body.request).not.toHaveProperty('response_format');
    expect(result.notes[0]).toMatch(/^response_format is not sent: sim\/echo-mini does not list/);
  });
});
