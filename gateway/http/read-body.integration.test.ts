import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { GatewayError } from '../errors';
import { generateKey } from '../keys/key-material';
import { postJson, startTestGateway, type TestGateway } from '../../testing/gateway-support';
import { nestingDepth, OFF_THREAD_BYTES, readJsonBody } from './read-body';
import { offThreadParses } from './parse-thread';

/** A request as readJsonBody sees it: headers and a body stream. */
function fakeRequest(body: string, headers: Record<string, string>): IncomingMessage {
  return Object.assign(Readable.from([Buffer.from(body)]), {
    headers,
  }) as unknown as IncomingMessage;
}

async function refusal(body: string, headers: Record<string, string>): Promise<GatewayError> {
  const error = await readJsonBody(fakeRequest(body, headers), 1024).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

describe('readJsonBody: Content-Type', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON;charset=UTF-8',
    ' application/json ',
    'application/vnd.api+json',
    'application/problem+json; charset=utf-8',
  ])('reads a body sent as %s', async (contentType) => {
    const request = fakeRequest('{"a":1}', { 'content-type': contentType });
    expect(await readJsonBody(request, 1024)).toEqual({ a: 1 });
  });

  it.each([
    ['text/plain', "'Content-Type: text/plain'"],
    ['text/plain;charset=UTF-8', "'Content-Type: text/plain;charset=UTF-8'"],
    ['application/x-www-form-urlencoded', "'Content-Type: application/x-www-form-urlencoded'"],
    ['multipart/form-data; boundary=x', "'Content-Type: multipart/form-data; boundary=x'"],
    ['text/json', "'Content-Type: text/json'"],
    ['application/jsonp', "'Content-Type: application/jsonp'"],
    ['application/json-seq', "'Content-Type: application/json-seq'"],
    ['application/+json', "'Content-Type: application/+json'"],
  ])('refuses %s with a 415 naming it, even when the body is JSON', async (contentType, named) => {
    const error = await refusal('{"a":1}', { 'content-type': contentType });
    expect(error).toMatchObject({
      status: 415,
      type: 'unsupported_media_type',
      stage: 'validation',
    });
    expect(error.message).toContain("'Content-Type: application/json'");
    expect(error.message).toContain(named);
  });

  it('refuses a body without Content-Type', async () => {
    const error = await refusal('{"a":1}', {});
    expect(error).toMatchObject({ status: 415, type: 'unsupported_media_type' });
    expect(error.message).toMatch(/sent no Content-Type/);
  });

  it('names what was sent, shortened and with any key masked', async () => {
    const key = generateKey();
    const error = await refusal('{}', {
      'content-type': `text/plain; x=${key}; ${'y'.repeat(500)}`,
    });
    expect(error.message).not.toContain(key.slice(3));
    expect(error.message.length).toBeLessThan(300);
  });
});

describe('readJsonBody over HTTP', () => {
  let gateway: TestGateway;
  let key: string;
  beforeAll(async () => {
    gateway = await startTestGateway();
    key = (await gateway.createKey({ kind: 'account', limitUsd: 1 })).key;
  });
  afterAll(() => gateway.stop());

  it('answers 415 on each form, after the key check and before the body is read', async () => {
    const body = JSON.stringify({ model: 'sim/chat-standard', messages: [] });
    const sends: Array<[string, Record<string, string>]> = [
      ['/v1/chat/completions', { authorization: `Bearer ${key}` }],
      ['/v1/messages', { 'x-api-key': key }],
      ['/v1beta/models/sim/chat-standard:generateContent', { 'x-goog-api-key': key }],
    ];
    for (const [path, auth] of sends) {
      for (const headers of [{ 'content-type': 'text/plain' }, {}] as Record<string, string>[]) {
        const response = await fetch(`${gateway.url}${path}`, {
          method: 'POST',
          headers: { ...auth, ...headers },
          body,
        });
        expect(response.status, path).toBe(415);
        expect(await response.text(), path).toMatch(/Content-Type: application\/json/);
      }
    }
    // A form post with no key at all is refused for the key first (401), as before.
    const anonymous = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    });
    expect(anonymous.status).toBe(401);
    // application/json still passes the check (here to the 400 for the empty messages).
    const json = await postJson(`${gateway.url}/v1/chat/completions`, JSON.parse(body), { key });
    expect(json.status).toBe(400);
  });
});

describe('nestingDepth', () => {
  it.each([
    ['1', 0],
    ['{}', 1],
    ['{"a":[1,{"b":[]}]}', 4],
    ['["[[[[", "{{{"]', 1],
    ['["a\\\\", [["\\"[[["]]]', 3],
    ['{"a":"\\\\\\"{{"}', 1],
    ['"[[["', 0],
  ])('of %s is %i', (text, depth) => {
    JSON.parse(text); // every case is valid JSON, as the function assumes
    expect(nestingDepth(text)).toBe(depth);
  });
});

describe('readJsonBody: large bodies are parsed on another thread', () => {
  const json = { 'content-type': 'application/json' };
  const large = (text: string) => text.padEnd(OFF_THREAD_BYTES + 10, ' ');

  it('gives the same value as a small body would, parsed off the event loop', async () => {
    const before = offThreadParses();
    const prompt = 'lorem ipsum '.repeat(OFF_THREAD_BYTES / 10);
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: prompt }] });
    expect(await readJsonBody(fakeRequest(body, json), 4 * OFF_THREAD_BYTES)).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: prompt }],
    });
    expect(offThreadParses()).toBe(before + 1);
    // A small body is parsed in place.
    await readJsonBody(fakeRequest('{"a":1}', json), 1024);
    expect(offThreadParses()).toBe(before + 1);
  });

  it.each([
    ['not JSON', large('{"model": '), /not valid JSON \(/],
    ['empty', large(''), /body is empty/],
    ['nested too deep', large(`${'['.repeat(200)}${']'.repeat(200)}`), /nested more than 128/],
  ])('refuses a large body that is %s with the same 400 as a small one', async (_, body, said) => {
    const error = await readJsonBody(fakeRequest(body, json), 4 * OFF_THREAD_BYTES).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 400 });
    expect((error as GatewayError).message).toMatch(said);
  });
});
