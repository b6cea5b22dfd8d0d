/** Where a key may travel, the 401 bodies, and keys kept out of every body and log line. */
import type { IncomingMessage } from 'node:http';
import { gatewayErrorBodySchema } from '../../contract/gateway';
import { GatewayError } from '../errors';
import { generateKey } from '../keys/key-material';
import { createLogger } from '../logger';
import { presentedKey, type AuthForm } from './authenticate';
import {
  chatBody,
  expectCfRay,
  postJson,
  startTestGateway,
  type TestGateway,
} from '../../testing/gateway-support';

let gateway: TestGateway;
let key: string;
const logLines: string[] = [];

beforeAll(async () => {
  const logger = createLogger('info', { write: (line: string) => void logLines.push(line) });
  gateway = await startTestGateway({}, { logger });
  key = (await gateway.createKey({ kind: 'account', limitUsd: 20 })).key;
});
afterAll(async () => {
  await gateway.stop();
});

const chatUrl = () => `${gateway.url}/v1/chat/completions`;

async function unauthorized(response: Response, message: RegExp) {
  expect(response.status).toBe(401);
  expectCfRay(response);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = gatewayErrorBodySchema.parse(await response.json());
  expect(typeof body.error).toBe('string');
  expect(body.error).toMatch(message);
  expect(body.type).toBe('authentication_error');
}

describe('authentication', () => {
  it('accepts the key as Authorization: Bearer', async () => {
    expect(
      (await postJson(chatUrl(), chatBody(), { headers: { authorization: `Bearer ${key}` } }))
        .status,
    ).toBe(200);
  });

  it('accepts the key as the ?key= query parameter on every route', async () => {
    expect((await postJson(`${chatUrl()}?key=${key}`, chatBody())).status).toBe(200);
    expect((await fetch(`${gateway.url}/v1/balance?key=${key}`)).status).toBe(200);
  });

  it('lets ?key= take precedence over the header', async () => {
    const validQuery = await postJson(`${chatUrl()}?key=${key}`, chatBody(), {
      headers: { authorization: 'Bearer sk-bogus-header-key' },
    });
    expect(validQuery.status).toBe(200);
    const bogusQuery = await postJson(`${chatUrl()}?key=sk-bogus-query-key`, chatBody(), {
      headers: { authorization: `Bearer ${key}` },
    });
    await unauthorized(bogusQuery, /not known/);
    const balanceBogusQuery = await fetch(`${gateway.url}/v1/balance?key=sk-bogus-query-key`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await unauthorized(balanceBogusQuery, /not known/);
  });

  it('answers 401 with a JSON error saying the key is missing', async () => {
    await unauthorized(await postJson(chatUrl(), chatBody()), /No API key was sent/);
  });

  it("answers 401 with a JSON error saying the key does not start with 'sk-'", async () => {
    await unauthorized(
      await postJson(chatUrl(), chatBody(), { headers: { authorization: 'Bearer pk-12345' } }),
      /does not start with 'sk-'/,
    );
    await unauthorized(
      await postJson(`${chatUrl()}?key=abc`, chatBody()),
      /does not start with 'sk-'/,
    );
  });

  it('answers 401 with a JSON error saying the key is unknown', async () => {
    await unauthorized(
      await postJson(chatUrl(), chatBody(), { key: generateKey() }),
      /not known to this gateway/,
    );
  });

  it('answers 401 for a key in Authorization without Bearer, saying how to send it', async () => {
    const bare = { authorization: key };
    const howTo = /does not start with 'Bearer ': send the key as 'Authorization: Bearer sk-…'/;
    for (const response of [
      await postJson(chatUrl(), chatBody(), { headers: bare }),
      await fetch(`${gateway.url}/v1/balance`, { headers: bare }),
      await fetch(`${gateway.url}/v1/balance`, { headers: { authorization: `Basic ${key}` } }),
    ]) {
      await unauthorized(response, howTo);
    }
    await unauthorized(
      await fetch(`${gateway.url}/v1/balance`, { headers: { authorization: 'Bearer ' } }),
      /no key after 'Bearer'/,
    );
  });

  it('answers 401 for an empty ?key=', async () => {
    await unauthorized(await postJson(`${chatUrl()}?key=`, chatBody(), { key }), /empty/);
  });

  it('never puts a key, valid or not, in a response body or a log line', async () => {
    const unknown = generateKey();
    const bodies: string[] = [];
    const collect = async (response: Promise<Response>) =>
      bodies.push(await (await response).text());
    await collect(postJson(`${chatUrl()}?key=${key}`, chatBody()));
    await collect(postJson(`${chatUrl()}?key=${key}`, chatBody({ stream: true })));
    await collect(postJson(`${chatUrl()}?key=${key}`, chatBody({ model: 'sim/unknown' })));
    await collect(postJson(`${chatUrl()}?key=${key}`, '{not json'));
    await collect(postJson(`${chatUrl()}?key=${unknown}`, chatBody()));
    await collect(postJson(chatUrl(), chatBody(), { key: unknown }));
    await collect(fetch(`${gateway.url}/v1/balance?key=${key}&other=1`));
    await collect(fetch(`${gateway.url}/v1/generation?id=nope&key=${key}`));
    await collect(fetch(`${gateway.url}/v1/models?key=${key}`));
    await collect(fetch(`${gateway.url}/v1/nowhere?key=${key}`));
    await collect(fetch(`${gateway.url}/v1/balance?key=${key}`, { method: 'DELETE' }));

    expect(bodies).toHaveLength(11);
    for (const body of bodies) {
      expect(body).not.toContain(key);
      expect(body).not.toContain(unknown);
    }
    const log = logLines.join('');
    expect(log).toContain('/v1/balance?key=[redacted]&other=1');
    expect(log).toContain('/v1/chat/completions?key=[redacted]');
    expect(log).not.toContain(key);
    expect(log).not.toContain(unknown);
    expect(log).not.toContain(key.slice(3));
    // Every request line carries its cf-ray.
    const requestLines = logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === 'request');
    expect(requestLines.length).toBeGreaterThanOrEqual(11);
    for (const line of requestLines) expect(line.cfRay).toMatch(/^[0-9a-f]{16}-[A-Z]{3}$/);
  });

  it('redacts key-bearing fields should anything log them', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    logger.info(
      {
        key,
        headers: { authorization: `Bearer ${key}` },
        request: { headers: { authorization: key } },
      },
      'oops',
    );
    expect(lines.join('')).not.toContain(key);
    expect(lines.join('')).toContain('[redacted]');
  });
});

describe('presentedKey', () => {
  const url = new URL('http://gateway.invalid/v1/chat/completions');
  const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
  const refusal = (headers: Record<string, string>, form: AuthForm = 'chat_completions') => {
    try {
      presentedKey(request(headers), url, form);
    } catch (error) {
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).status).toBe(401);
      return (error as GatewayError).message;
    }
    throw new Error('accepted');
  };

  it('takes the token of Authorization: Bearer, in any case and spacing', () => {
    const key = generateKey();
    expect(presentedKey(request({ authorization: `Bearer ${key}` }), url, 'chat_completions')).toBe(
      key,
    );
    expect(presentedKey(request({ authorization: `bearer   ${key} ` }), url, 'messages')).toBe(key);
  });

  it('refuses any other Authorization header, telling to send Bearer and never quoting it', () => {
    const key = generateKey();
    for (const form of ['chat_completions', 'messages'] as const) {
      for (const header of [key, `Basic ${key}`, `Token ${key}`, `${key} Bearer`]) {
        const message = refusal({ authorization: header }, form);
        expect(message).toMatch(/does not start with 'Bearer '/);
        expect(message).toContain("'Authorization: Bearer sk-…'");
        expect(message).not.toContain(key.slice(3, 12));
      }
      expect(refusal({ authorization: 'Bearer' }, form)).toMatch(/no key after 'Bearer'/);
    }
  });

  it('still lets x-api-key win on the Messages form and ?key= everywhere', () => {
    const key = generateKey();
    expect(
      presentedKey(request({ 'x-api-key': key, authorization: 'junk' }), url, 'messages'),
    ).toBe(key);
    const withQuery = new URL(`http://gateway.invalid/v1/balance?key=${key}`);
    expect(presentedKey(request({ authorization: 'junk' }), withQuery, 'chat_completions')).toBe(
      key,
    );
  });
});
