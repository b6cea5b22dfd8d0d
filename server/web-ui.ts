/**
 * The built UI from `dist/web` with a fallback to `index.html` for the SPA's own paths, or, in
 * development, Vite as middleware for hot reload.
 */
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type RequestHandler } from 'express';
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

export function staticUi(staticDir: string): RequestHandler[] {
  const indexFile = path.join(staticDir, 'index.html');
  const serveFiles = express.static(staticDir, {
    index: false,
    // Vite names built assets by content hash, so they can be kept; index.html must not be.
    setHeaders: (response, filePath) => {
      const immutable = filePath.includes(`${path.sep}assets${path.sep}`);
      response.setHeader(
        'Cache-Control',
        immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
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
    response.setHeader('Cache-Control', 'no-cache');
    response.sendFile(indexFile);
  };
  return [serveFiles, fallback];
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
