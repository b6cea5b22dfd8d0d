/** "Get code" for the Responses form and for embeddings: the routes, the calls, never a key. */
import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../../contract/workbench-api';
import { codeTargets, embeddingsCodeTargets } from './index';

const baseUrl = 'http://127.0.0.1:8787';

const request: ChatRequest['request'] = {
  model: 'sim/chat-standard',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hello' },
  ],
  max_tokens: 64,
  temperature: 0.2,
  stream: true,
};

const generate = (id: string, api: 'chat_completions' | 'responses', stream = true) => {
  const target = codeTargets.find((candidate) => candidate.id === id);
  if (!target) throw new Error(`no target ${id}`);
  return target.generate({ gatewayBaseUrl: baseUrl, request: { ...request, stream }, api });
};

describe('Get code with the Responses API', () => {
  it('curl posts the Responses body to /v1/responses', () => {
    const code = generate('curl', 'responses');
    expect(code).toContain('curl -N http://127.0.0.1:8787/v1/responses \\');
    expect(code).toContain('-H "Authorization: Bearer $GATEWAY_API_KEY"');
    const json = code.slice(code.indexOf('{'), code.lastIndexOf('}') + 1);
    expect(JSON.parse(json)).toEqual({
      model: 'sim/chat-standard',
      instructions: 'Be brief.',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello' }] }],
      max_output_tokens: 64,
      temperature: 0.2,
      stream: true,
      store: false,
    });
  });

  it('JavaScript calls client.responses.create and reads the text deltas', () => {
    const streamed = generate('openai-typescript', 'responses');
    expect(streamed).toContain('await client.responses.create({');
    expect(streamed).toContain("event.type === 'response.output_text.delta'");
    expect(streamed).toContain('apiKey: process.env.GATEWAY_API_KEY,');
    expect(streamed).not.toContain('chat.completions');
    const plain = generate('openai-typescript', 'responses', false);
    expect(plain).toContain('console.info(response.output_text);');
  });

  it('Python calls client.responses.create with max_output_tokens', () => {
    const code = generate('openai-python', 'responses', false);
    expect(code).toContain('response = client.responses.create(');
    expect(code).toContain('    max_output_tokens=64,');
    expect(code).toContain('    store=False,');
    expect(code).toContain('api_key=os.environ["GATEWAY_API_KEY"]');
  });

  it('keeps the chat-completion code when chat completions are chosen', () => {
    expect(generate('curl', 'chat_completions')).toContain('/v1/chat/completions');
    expect(generate('openai-typescript', 'chat_completions')).toContain(
      'client.chat.completions.create(',
    );
  });
});

describe('Get code for an embedding model', () => {
  const embeddings = {
    model: 'sim/embed-small',
    input: ['a cat', 'a dog'],
    dimensions: 64,
  };
  const code = (id: string) => {
    const target = embeddingsCodeTargets.find((candidate) => candidate.id === id);
    if (!target) throw new Error(`no target ${id}`);
    return target.generate({ gatewayBaseUrl: `${baseUrl}/v1?key=sk-leaked`, request: embeddings });
  };

  it('curl posts floats to /v1/embeddings', () => {
    const text = code('curl');
    expect(text).toContain('curl http://127.0.0.1:8787/v1/embeddings \\');
    const json = text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1);
    expect(JSON.parse(json)).toEqual({ ...embeddings, encoding_format: 'float' });
  });

  it('JavaScript and Python call client.embeddings.create with the key from the environment', () => {
    expect(code('openai-typescript')).toContain('await client.embeddings.create({');
    expect(code('openai-typescript')).toContain('apiKey: process.env.GATEWAY_API_KEY,');
    expect(code('openai-python')).toContain('result = client.embeddings.create(');
    expect(code('openai-python')).toContain('    dimensions=64,');
  });

  it('never carries a key, not even one in the configured address', () => {
    for (const target of embeddingsCodeTargets) expect(code(target.id)).not.toContain('sk-leaked');
  });
});
