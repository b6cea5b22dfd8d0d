/**
 * The Gemini adapter inside the shared upstream engine, against a fake Gemini on loopback that
 * replays the recorded answers and records what it was sent: the path, the key header, the body,
 * the stream framing and the error answers, end to end.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CanonicalEvent, CanonicalRequest } from '../../canonical/model';
import { UpstreamError } from '../upstream-error';
import { createUpstreamProvider, type UpstreamProvider } from '../upstream/upstream-provider';
import { geminiAdapter } from './index';
import {
  canonicalRequest,
  fixtureChunks,
  fixtureJson,
  fixtureText,
  providerConfig,
  route,
  testKey,
} from '../../../testing/providers/gemini-kit';

type Received = { url: string; headers: http.IncomingHttpHeaders; body: string };

const pngBytes = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

let received: Received[] = [];
let answer: (request: http.IncomingMessage, response: http.ServerResponse) => void = () => {};
let server: http.Server;
let provider: UpstreamProvider;
let base = '';

beforeAll(async () => {
  server = http.createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/cat.png') {
      response.writeHead(200, { 'content-type': 'image/png' }).end(pngBytes);
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      answer(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  provider = createUpstreamProvider(providerConfig({ baseUrl: base }), geminiAdapter, {
    allowPrivateHosts: true,
  });
});

afterAll(async () => {
  await provider.close();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received = [];
});

async function run(request: CanonicalRequest) {
  const events: CanonicalEvent[] = [];
  let failure: unknown;
  try {
    for await (const event of provider.stream(request, route, new AbortController().signal))
      events.push(event);
  } catch (error) {
    failure = error;
  }
  return { events, failure };
}

describe('Gemini provider on loopback', () => {
  it('posts to generateContent with the key in its header and reads the whole answer', async () => {
    const recorded = fixtureJson('gemini-text-response.json');
    answer = (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'application/json; charset=UTF-8' })
        .end(JSON.stringify(recorded));
    const { events, failure } = await run(canonicalRequest({ stream: false, system: 'Be brief.' }));
    expect(failure).toBeUndefined();
    expect(received).toHaveLength(1);
    expect(received[0]!.url).toBe(`/v1beta/models/${route.upstreamModel}:generateContent`);
    expect(received[0]!.headers['x-goog-api-key']).toBe(testKey);
    expect(JSON.parse(received[0]!.body)).toMatchObject({
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Hello there' }] }],
    });
    expect(events.map((event) => event.type)).toEqual(['text-delta', 'finish']);
  });

  it('streams from streamGenerateContent?alt=sse, split across network writes', async () => {
    const text = fixtureText('gemini-text.chunks.txt');
    answer = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      // Cut the recording mid-event, where a naive reader would break.
      const cut = Math.floor(text.length / 2);
      response.write(text.slice(0, cut));
      setTimeout(() => response.end(text.slice(cut)), 10);
    };
    const { events, failure } = await run(canonicalRequest({ stream: true }));
    expect(failure).toBeUndefined();
    expect(received[0]!.url).toBe(
      `/v1beta/models/${route.upstreamModel}:streamGenerateContent?alt=sse`,
    );
    expect(received[0]!.url).not.toContain(testKey);
    const chunks = fixtureChunks('gemini-text.chunks.txt');
    expect(
      events.filter((event) => event.type === 'text-delta').map((event) => event.text),
    ).toEqual(chunks.map((chunk) => chunk.candidates![0]!.content!.parts![0]!.text));
    expect(events.at(-1)).toMatchObject({
      type: 'finish',
      usage: { promptTokens: chunks.at(-1)!.usageMetadata!.promptTokenCount },
    });
  });

  it('sends an image given by URL inline, as the engine fetched it', async () => {
    answer = (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(fixtureText('gemini-text-response.json'));
    await run(
      canonicalRequest({
        messages: [
          {
            role: 'user',
            parts: [{ type: 'image', mediaType: 'image/*', url: `${base}/cat.png` }],
          },
        ],
        inbound: { form: 'chat_completions', body: {}, unmappedFields: [] },
      }),
    );
    expect(JSON.parse(received[0]!.body).contents[0].parts).toEqual([
      { inlineData: { mimeType: 'image/png', data: pngBytes.toString('base64') } },
    ]);
  });

  it('reports a 429 with the vendor’s message and status name', async () => {
    const recorded = fixtureJson('gemini-error-resource-exhausted.json');
    answer = (_request, response) =>
      response
        .writeHead(429, { 'content-type': 'application/json', 'retry-after': '37' })
        .end(JSON.stringify(recorded));
    const { failure } = await run(canonicalRequest());
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({
      failure: 'http',
      details: { status: 429, retryAfterSeconds: 37, upstreamType: recorded.error!.status },
    });
    // The engine cleans addresses out of the message; the vendor's words remain.
    expect((failure as UpstreamError).message).toContain('You exceeded your current quota');
  });
});
