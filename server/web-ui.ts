/**
 * The built UI from `dist/web` with a fallback to `index.html` for the SPA's own paths, or, in
 * development, Vite as middleware for hot reload.
 */
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import type { ViteDevServer } from 'vite';

// One folder below the repository's root both here (server/) and bundled (dist/start.js), which
// is why this file stays at the top of server/ rather than in a feature folder.
const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));

export const defaultStaticDir = path.join(repositoryRoot, 'dist', 'web');

/** Pages of the SPA: GET/HEAD outside `/api` that are not files. */
function isPageRequest(method: string, requestPath: string): boolean {
  return (
    (method === 'GET' || method === 'HEAD') &&
    requestPath !== '/api' &&
    !requestPath.startsWith('/api/')
  );
}

// Vite names built assets by content hash, so they can be kept; index.html must not be.
function cacheControlOf(filePath: string): string {
  return filePath.includes(`${path.sep}assets${path.sep}`)
    ? 'public, max-age=31536000, immutable'
    : 'no-cache';
}

const encodings = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;

/**
 * Sends `file` as the brotli or gzip copy the build made beside it (scripts/precompress.mjs),
 * when the browser takes that encoding; false when there is none, so the caller sends it plain.
 */
function sendPrecompressed(
  request: Request,
  response: Response,
  file: string,
  next: NextFunction,
): boolean {
  response.vary('Accept-Encoding');
  // Ours to choose among what the browser takes: browsers list gzip first but brotli is smaller.
  const encoding = encodings.find((candidate) => request.acceptsEncodings(candidate.name));
  if (!encoding || !existsSync(file + encoding.suffix)) return false;
  response.setHeader('Content-Encoding', encoding.name);
  response.setHeader('Cache-Control', cacheControlOf(file));
  // The type of what was compressed; send() keeps a Content-Type that is already set.
  response.type(path.extname(file));
  response.sendFile(file + encoding.suffix, (error) => error && next(error));
  return true;
}

export function staticUi(staticDir: string): RequestHandler[] {
  const root = path.resolve(staticDir);
  const indexFile = path.join(root, 'index.html');
  const serveCompressed: RequestHandler = (request, response, next) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return next();
    let file: string;
    try {
      file = path.join(root, decodeURIComponent(request.path));
    } catch {
      return next();
    }
    // Only files below the folder; anything else goes on to the app's pages.
    if (!file.startsWith(root + path.sep)) return next();
    if (!sendPrecompressed(request, response, file, next)) next();
  };
  const serveFiles = express.static(root, {
    index: false,
    setHeaders: (response, filePath) =>
      response.setHeader('Cache-Control', cacheControlOf(filePath)),
  });
  const fallback: RequestHandler = (request, response, next) => {
    if (!isPageRequest(request.method, request.path)) return next();
    if (!existsSync(indexFile)) {
      response
        .status(503)
        .type('text/plain')
        .send(
          'The workbench UI is not built yet: run `npm run build` (npm start does it when missing).',
        );
      return;
    }
    if (sendPrecompressed(request, response, indexFile, next)) return;
    response.setHeader('Cache-Control', 'no-cache');
    response.sendFile(indexFile);
  };
  return [serveCompressed, serveFiles, fallback];
}

/** Vite in middleware mode; its HMR websocket shares the BFF's HTTP server when given. */
export function devUi(options: { httpServer?: Server; allowedHosts: string[] }): {
  middleware: RequestHandler;
  /** Hands any request to Vite, also one under /api (the UI's web/api/*.ts modules). */
  modules: RequestHandler;
  close(): Promise<void>;
} {
  const vitePromise: Promise<ViteDevServer> = import('vite').then(({ createServer }) =>
    createServer({
      configFile: path.join(repositoryRoot, 'vite.config.ts'),
      root: path.join(repositoryRoot, 'web'),
      appType: 'spa',
      server: {
        middlewareMode: true,
        hmr: options.httpServer ? { server: options.httpServer } : undefined,
        // Vite checks Host itself too (its answer to CVE-2025-24010); give it the same list.
        allowedHosts: options.allowedHosts.map((entry) => entry.replace(/:\d+$/, '')),
        // Vite answers localhost origins with CORS headers by default; the BFF sends none.
        cors: false,
      },
    }),
  );
  // Keep an early failure from becoming an unhandled rejection; requests will report it.
  vitePromise.catch(() => undefined);
  const middleware: RequestHandler = (request, response, next) => {
    if (!isPageRequest(request.method, request.path)) return next();
    vitePromise.then((vite) => vite.middlewares(request, response, next), next);
  };
  const modules: RequestHandler = (request, response, next) => {
    vitePromise.then((vite) => vite.middlewares(request, response, next), next);
  };
  return {
    middleware,
    modules,
    close: async () => {
      const vite = await vitePromise.catch(() => null);
      await vite?.close();
    },
  };
}
