/**
 * A small router over Node's own `http`: exact paths in a map, patterns in a short list. The
 * gateway has a dozen routes; a framework would add overhead to every request for nothing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestTiming } from '../shared/request-timing';

export type RouteContext = {
  request: IncomingMessage;
  response: ServerResponse;
  url: URL;
  traceId: string;
  /** When the request arrived, and how much of its time went to waiting on others. */
  timing: RequestTiming;
  params: Record<string, string>;
  /** The documented operations the matched route serves (none for a path no route serves). */
  operationIds?: readonly string[];
  /** An unexpected error the route hit, for the log line (never sent to the client). */
  failure?: unknown;
};

export type RouteHandler = (context: RouteContext) => Promise<void> | void;

/** What a request is served by: its handler, and the documented operations that handler serves. */
type Served = { handler: RouteHandler; operationIds: readonly string[] };

type PatternRoute = Served & { method: string; pattern: RegExp };

/** A route the router found for a request, with the path parameters its pattern took. */
export type Match = Served & { params: Record<string, string> };

/**
 * One registration as added: the documented operations it serves, or a fallback that only
 * answers errors (a form's own 404). Read by the OpenAPI test to hold the document to the router.
 */
export type Registration = {
  method: string;
  path: string | RegExp;
  handler: RouteHandler;
  operationIds: readonly string[];
  fallback: boolean;
};

export class Router {
  private readonly exact = new Map<string, Served>();
  private readonly patterns: PatternRoute[] = [];
  /** Paths that exist under some method, to tell 405 from 404. */
  private readonly knownPaths = new Set<string>();
  private readonly added: Registration[] = [];

  /** Adds a route; `operationIds` names the documented operations it serves (routes/route-doc.ts). */
  add(
    method: string,
    path: string | RegExp,
    handler: RouteHandler,
    operationIds: readonly string[] = [],
  ): this {
    return this.register({ method, path, handler, operationIds, fallback: false });
  }

  /** Adds a route that answers only errors, in a form's own shape, for paths nothing else serves. */
  addFallback(method: string, pattern: RegExp, handler: RouteHandler): this {
    return this.register({ method, path: pattern, handler, operationIds: [], fallback: true });
  }

  private register(registration: Registration): this {
    const { method, path, handler, operationIds } = registration;
    this.added.push(registration);
    if (typeof path === 'string') {
      this.exact.set(`${method} ${path}`, { handler, operationIds });
      this.knownPaths.add(path);
    } else {
      this.patterns.push({ method, pattern: path, handler, operationIds });
    }
    return this;
  }

  /** The route for a request, with the operations it serves (how /metrics labels it). */
  match(method: string, pathname: string): Match | 'wrong_method' | null {
    // HEAD is GET without the body (RFC 9110 9.3.2); Node leaves the body out by itself.
    const served =
      this.exact.get(`${method} ${pathname}`) ??
      (method === 'HEAD' ? this.exact.get(`GET ${pathname}`) : undefined);
    if (served) return { ...served, params: {} };
    let wrongMethod = this.knownPaths.has(pathname);
    for (const route of this.patterns) {
      const found = route.pattern.exec(pathname);
      if (!found) continue;
      if (route.method !== method && !(method === 'HEAD' && route.method === 'GET')) {
        wrongMethod = true;
        continue;
      }
      return {
        handler: route.handler,
        operationIds: route.operationIds,
        params: { ...found.groups },
      };
    }
    return wrongMethod ? 'wrong_method' : null;
  }

  /** Every registration, in the order added (off the hot path). */
  registrations(): readonly Registration[] {
    return this.added;
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

/**
 * A request's target as a URL. A path is read as a path: `//v1/models` must not become host `v1`
 * and path `/models`. Throws for a target that is no URL at all (`http://[`).
 */
export function requestUrl(target: string | undefined): URL {
  const path = target ?? '/';
  return path.startsWith('/')
    ? new URL(`http://gateway.invalid${path}`)
    : new URL(path, 'http://gateway.invalid');
}
