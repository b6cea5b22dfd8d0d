/**
 * The built UI as the BFF serves it: the brotli or gzip copy the build made, for a browser that
 * takes it, with long cache lifetimes only for content-hashed assets.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGateway, type FakeGateway } from './test-support/fake-gateway';
import { fakeKey, startTestBff, type TestBff } from './test-support/harness';

const staticDir = mkdtempSync(path.join(tmpdir(), 'workbench-ui-'));
const page = `<!doctype html><title>Workbench</title>${'<p>a skeleton</p>'.repeat(200)}`;
const script = `export const answer = ${JSON.stringify('x'.repeat(4000))};`;
let gateway: FakeGateway;
let bff: TestBff;

beforeAll(async () => {
  writeFileSync(path.join(staticDir, 'index.html'), page);
  mkdirSync(path.join(staticDir, 'assets'));
  writeFileSync(path.join(staticDir, 'assets', 'app-1a2b3c.js'), script);
  writeFileSync(path.join(staticDir, 'assets', 'logo.png'), Buffer.from([137, 80, 78, 71]));
  const { precompress } = (await import(
    path.resolve(import.meta.dirname, '..', 'scripts', 'precompress.mjs')
  )) as { precompress(folder: string): void };
  precompress(staticDir);
  gateway = await startFakeGateway();
  bff = await startTestBff({
    gatewayBaseUrl: gateway.baseUrl,
    profiles: { main: fakeKey() },
    staticDir,
  });
});

afterAll(async () => {
  await bff?.close();
  await gateway?.close();
  rmSync(staticDir, { recursive: true, force: true });
});

/** The answer's raw bytes, as they crossed the wire. */
function get(
  pathname: string,
  acceptEncoding?: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port: bff.port,
        path: pathname,
        headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {},
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            body: Buffer.concat(chunks),
          }),
        );
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('the built UI', () => {
  it('sends an asset as brotli when the browser takes it, cached for good', async () => {
    const answer = await get('/assets/app-1a2b3c.js', 'gzip, deflate, br');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe('br');
    expect(answer.headers['content-type']).toMatch(/^text\/javascript|^application\/javascript/);
    expect(answer.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(answer.headers.vary).toMatch(/accept-encoding/i);
    expect(answer.body.length).toBeLessThan(Buffer.byteLength(script) / 10);
    expect(zlib.brotliDecompressSync(answer.body).toString('utf8')).toBe(script);
  });

  it('sends gzip to a browser that takes only gzip', async () => {
    const answer = await get('/assets/app-1a2b3c.js', 'gzip');
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(answer.body).toString('utf8')).toBe(script);
  });

  it('sends the file as it is to a client that takes no encoding', async () => {
    const answer = await get('/assets/app-1a2b3c.js');
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.body.toString('utf8')).toBe(script);
  });

  it('serves the pages of the app compressed, never cached without asking', async () => {
    const answer = await get('/keys', 'br');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe('br');
    expect(answer.headers['content-type']).toMatch(/^text\/html/);
    expect(answer.headers['cache-control']).toBe('no-cache');
    expect(zlib.brotliDecompressSync(answer.body).toString('utf8')).toBe(page);
  });

  it('leaves files that do not compress alone', async () => {
    const answer = await get('/assets/logo.png', 'br, gzip');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect([...answer.body]).toEqual([137, 80, 78, 71]);
  });

  it('does not reach outside its folder through an encoded path: it is a page of the app', async () => {
    const answer = await get('/..%2f..%2fetc%2fpasswd', 'br');
    expect(zlib.brotliDecompressSync(answer.body).toString('utf8')).toBe(page);
  });
});
