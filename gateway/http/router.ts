/**
 * A small router over Node's own `http`: exact paths in a map, patterns in a short list. The
 * gateway has a dozen routes; a framework would add overhead to every request for nothing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type RouteContext = {
  request: IncomingMessage;
  response: ServerResponse;
  url: URL;
  traceId: string;
  startedAt: number;
  params: Record<string, string>;
  /** An unexpected error the route hit, for the log line (never sent to the client). */
  failure?: unknown;
};

export type RouteHandler = (context: RouteContext) => Promise<void> | void;

type PatternRoute = { method: string; pattern: RegExp; handler: RouteHandler };

export class Router {
  private readonly exact = new Map<string, RouteHandler>();
  private readonly patterns: PatternRoute[] = [];
  /** Paths that exist under some method, to tell 405 from 404. */
  private readonly knownPaths = new Set<string>();

  add(method: string, path: string | RegExp, handler: RouteHandler): this {
    if (typeof path === 'string') {
      this.exact.set(`${method} ${path}`, handler);
      this.knownPaths.add(path);
    } else {
      this.patterns.push({ method, pattern: path, handler });
    }
    return this;
  }

  match(
    method: string,
    pathname: string,
  ): { handler: RouteHandler; params: Record<string, string> } | 'wrong_method' | null {
    // HEAD is GET without the body (RFC 9110 9.3.2); Node leaves the body out by itself.
    const handler =
      this.exact.get(`${method} ${pathname}`) ??
      (method === 'HEAD' ? this.exact.get(`GET ${pathname}`) : undefined);
    if (handler) return { handler, params: {} };
    let wrongMethod = this.knownPaths.has(pathname);
    for (const route of this.patterns) {
      const found = route.pattern.exec(pathname);
      if (!found) continue;
      if (route.method !== method && !(method === 'HEAD' && route.method === 'GET')) {
        wrongMethod = true;
        continue;
      }
      return { handler: route.handler, params: { ...found.groups } };
    }
    return wrongMethod ? 'wrong_method' : null;
  }

  /** The methods a path answers, for the `Allow` header of a 405 (off the hot path). */
  allowedMethods(pathname: string): string[] {
    const methods = new Set<string>();
    for (const key of this.exact.keys()) {
      const space = key.indexOf(' ');
      if (key.slice(space + 1) === pathname) methods.add(key.slice(0, space));
    }
    for (const route of this.patterns) if (route.pattern.test(pathname)) methods.add(route.method);
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods];
  }
}
