/** Every response of every route carries a `cf-ray` trace id; error bodies repeat it. */
import { cfRayPattern, gatewayErrorBodySchema } from '../../contract/gateway';
import {
  chatBody,
  postJson,
  startTestGateway,
  type TestGateway,
} from '../../testing/gateway-support';

let gateway: TestGateway;
let key: string;
let expiredKey: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  key = (await gateway.createKey({ kind: 'account' })).key;
  expiredKey = (await gateway.createKey({ kind: 'account', expiresAt: 1_000_000 })).key;
});
afterAll(async () => {
  await gateway.stop();
});

type Case = [name: string, request: () => Promise<Response>, status: number];

const cases: Case[] = [
  ['models', () => fetch(`${gateway.url}/v1/models`), 200],
  [
    'chat completion',
    () => postJson(`${gateway.url}/v1/chat/completions`, chatBody(), { key }),
    200,
  ],
  [
    'chat stream',
    () => postJson(`${gateway.url}/v1/chat/completions`, chatBody({ stream: true }), { key }),
    200,
  ],
  [
    'chat 400',
    () => postJson(`${gateway.url}/v1/chat/completions`, { model: 'sim/chat-standard' }, { key }),
    400,
  ],
  ['chat 401', () => postJson(`${gateway.url}/v1/chat/completions`, chatBody()), 401],
  [
    'chat 402',
    () => postJson(`${gateway.url}/v1/chat/completions`, chatBody(), { key: expiredKey }),
    402,
  ],
  [
    'chat 404 model',
    () => postJson(`${gateway.url}/v1/chat/completions`, chatBody({ model: 'x/y' }), { key }),
    404,
  ],
  ['balance', () => fetch(`${gateway.url}/v1/balance?key=${key}`), 200],
  ['balance 401', () => fetch(`${gateway.url}/v1/balance`), 401],
  ['generation 400', () => fetch(`${gateway.url}/v1/generation?key=${key}`), 400],
  [
    'generation 404',
    () => fetch(`${gateway.url}/v1/generation?id=0000000000000000-LCL&key=${key}`),
    404,
  ],
  ['unknown route 404', () => fetch(`${gateway.url}/v2/anything`), 404],
  ['wrong method 405', () => fetch(`${gateway.url}/v1/chat/completions`), 405],
];

describe('cf-ray', () => {
  it.each(cases)(
    'is on the %s response, well-formed, and equal to request_id in error bodies',
    async (_name, request, status) => {
      const response = await request();
      expect(response.status).toBe(status);
      const ray = response.headers.get('cf-ray');
      expect(ray).toMatch(cfRayPattern);
      const text = await response.text();
      if (status >= 400) {
        const body = gatewayErrorBodySchema.parse(JSON.parse(text));
        expect(body.request_id).toBe(ray);
      }
    },
  );

  it('is different on every response, and names the generation record of an inference', async () => {
    const rays = new Set<string>();
    for (let index = 0; index < 5; index += 1) {
      const response = await postJson(`${gateway.url}/v1/chat/completions`, chatBody(), { key });
      await response.text();
      rays.add(response.headers.get('cf-ray')!);
    }
    expect(rays.size).toBe(5);
    for (const ray of rays) {
      const record = await fetch(`${gateway.url}/v1/generation?id=${ray}&key=${key}`);
      expect(record.status).toBe(200);
      expect(((await record.json()) as { id: string }).id).toBe(ray);
    }
  });
});
