/**
 * Malformed input on every form: each gets a 4xx in its own shape that names the problem, with
 * a `cf-ray`, never a 500; and the URL and method edge cases of the router.
 */
import { cfRayPattern } from '../../contract/gateway';
import { expectCfRay, startTestGateway, type TestGateway } from '../../testing/gateway-support';

let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  key = (await gateway.createKey({ kind: 'account', limitUsd: 1 })).key;
});
afterAll(() => gateway.stop());

const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

const post = (path: string, headers: Record<string, string>, body: string) =>
  fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });

const forms = () => [
  {
    name: 'chat completions',
    send: (extra: string) =>
      post(
        '/v1/chat/completions',
        { authorization: `Bearer ${key}` },
        `{"model":"sim/chat-standard","max_tokens":4,"messages":[{"role":"user","content":"hi"}],` +
          `"tools":[{"type":"function","function":{"name":"f","parameters":{"x":${extra}}}}]}`,
      ),
    message: (body: Record<string, unknown>) => body.error as string,
  },
  {
    name: 'messages',
    send: (extra: string) =>
      post(
        '/v1/messages',
        { 'x-api-key': key },
        `{"model":"sim/chat-standard","max_tokens":4,"messages":[{"role":"user","content":"hi"}],` +
          `"tools":[{"name":"f","input_schema":{"x":${extra}}}]}`,
      ),
    message: (body: Record<string, unknown>) => (body.error as { message: string }).message,
  },
  {
    name: 'gemini',
    send: (extra: string) =>
      post(
        '/v1beta/models/sim/chat-standard:generateContent',
        { 'x-goog-api-key': key },
        `{"contents":[{"parts":[{"text":"hi"}]}],"generationConfig":{"maxOutputTokens":4},"x":${extra}}`,
      ),
    message: (body: Record<string, unknown>) => (body.error as { message: string }).message,
  },
];

describe('deeply nested JSON', () => {
  it.each(forms().map((form) => [form.name, form] as const))(
    'is a 400 in the %s form, not a 500',
    async (_name, form) => {
      const response = await form.send(nested(20_000));
      expect(response.status).toBe(400);
      expectCfRay(response);
      expect(form.message((await response.json()) as Record<string, unknown>)).toContain('nested');
    },
  );

  it.each(forms().map((form) => [form.name, form] as const))(
    'leaves ordinary nesting alone in the %s form',
    async (_name, form) => {
      const response = await form.send(nested(20));
      expect(response.status).toBe(200);
      await response.text();
    },
  );
});

describe('inline images that are not base64', () => {
  it('are a 400 naming the field on the Messages form', async () => {
    const response = await post(
      '/v1/messages',
      { 'x-api-key': key },
      JSON.stringify({
        model: 'sim/vision-pro',
        max_tokens: 4,
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'image',
                source: { type: 'base64', media_type: 'image/png', data: '!!not base64!!' },
              },
            ],
          },
        ],
      }),
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toContain("'messages.0.content.0.source.data'");
  });

  it('are a 400 naming the field on the Gemini form', async () => {
    const response = await post(
      '/v1beta/models/sim/vision-pro:generateContent',
      { 'x-goog-api-key': key },
      JSON.stringify({
        contents: [{ parts: [{ inlineData: { mimeType: 'image/png', data: '!!not base64!!' } }] }],
        generationConfig: { maxOutputTokens: 4 },
      }),
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { status: string; message: string } };
    expect(body.error.status).toBe('INVALID_ARGUMENT');
    expect(body.error.message).toContain("'contents.0.parts.0.inlineData.data'");
  });

  it('are a 400 naming the field on the chat-completion form', async () => {
    const response = await post(
      '/v1/chat/completions',
      { authorization: `Bearer ${key}` },
      JSON.stringify({
        model: 'sim/vision-pro',
        max_tokens: 4,
        messages: [
          {
            role: 'user',
            content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,=abc' } }],
          },
        ],
      }),
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain(
      "'messages.0.content.0.image_url'",
    );
  });
});

describe('methods and URLs', () => {
  it('answers HEAD like GET, without a body', async () => {
    const response = await fetch(`${gateway.url}/v1/models`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expectCfRay(response);
    expect(await response.text()).toBe('');
  });

  it('says which methods a path takes on a 405', async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'OPTIONS' });
    expect(response.status).toBe(405);
    expectCfRay(response);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('reads a path starting with // as a path, not as a host', async () => {
    const response = await fetch(`${gateway.url}//anything/v1/models`);
    expect(response.status).toBe(404);
    expectCfRay(response);
    expect(((await response.json()) as { error: string }).error).toContain('//anything/v1/models');
  });

  it('answers a request line too long for the HTTP parser with a cf-ray and a JSON error', async () => {
    const response = await fetch(`${gateway.url}/v1/${'a'.repeat(64 * 1024)}`);
    expect(response.status).toBe(431);
    expect(response.headers.get('cf-ray')).toMatch(cfRayPattern);
    expect(await response.json()).toMatchObject({ type: 'request_too_large' });
  });
});
