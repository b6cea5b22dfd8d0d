/**
 * The guards of a local server that holds keys (docs/security.md):
 * a `Host` check against DNS rebinding, no cross-site request on the API at all (a GET
 * included: an `<img>` sends one without a preflight), JSON-only and same-origin state changes
 * against cross-site POSTs, no CORS headers at all, and security headers on every answer.
 */
import type { RequestHandler } from 'express';
import { ApiFailure } from './errors';
import { mediaType } from './media-type';

/** Where the BFF listens; the port is filled in once the socket is bound (it may be 0 first). */
export interface ListenAddress {
  host: string;
  port: number;
}

function splitHost(value: string): { name: string; port: string | null } | null {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(value);
  if (!match?.[1]) return null;
  return { name: match[1], port: match[2] ?? null };
}

/** `::1` becomes `[::1]`, the form it takes in a Host header. */
function hostForHeader(host: string): string {
  const lower = host.toLowerCase();
  return lower.includes(':') && !lower.startsWith('[') ? `[${lower}]` : lower;
}

/**
 * True when a `Host` header names this server: a loopback name or the listen address with the
 * listen port, or one of the extra allowed names (any port, unless the entry gives one).
 */
export function isAllowedHost(
  hostHeader: string | undefined,
  listen: ListenAddress,
  allowedHosts: string[],
): boolean {
  if (!hostHeader) return false;
  const host = splitHost(hostHeader.toLowerCase());
  if (!host) return false;
  const loopbackNames = new Set(['localhost', '127.0.0.1', '[::1]', hostForHeader(listen.host)]);
  // 0.0.0.0 and :: are bind-everything addresses, never what a browser puts in Host.
  loopbackNames.delete('0.0.0.0');
  loopbackNames.delete('[::]');
  if (loopbackNames.has(host.name) && host.port === String(listen.port)) return true;
  for (const entry of allowedHosts) {
    const allowed = splitHost(entry);
    if (!allowed || allowed.name !== host.name) continue;
    if (allowed.port === null || allowed.port === host.port) return true;
  }
  return false;
}

export function hostCheck(listen: ListenAddress, allowedHosts: string[]): RequestHandler {
  return (request, _response, next) => {
    if (isAllowedHost(request.headers.host, listen, allowedHosts)) return next();
    next(
      new ApiFailure(403, {
        message:
          'This Host is not allowed. Open the workbench at its own address (for example http://127.0.0.1:5173).',
        stage: 'validation',
        field: 'Host',
        advice: 'Behind a proxy, add the public host name to WORKBENCH_ALLOWED_HOSTS.',
      }),
    );
  };
}

/**
 * True when an `Origin` header names this server. The Host header was already checked against
 * the allow list; the origin must match it. `null` (a sandboxed frame, a `data:` page) is not
 * this server.
 */
function isOwnOrigin(origin: string, hostHeader: string | undefined): boolean {
  if (origin === 'null') return false;
  try {
    return new URL(origin).host.toLowerCase() === (hostHeader ?? '').toLowerCase();
  } catch {
    return false;
  }
}

/** `Sec-Fetch-Site` values of a request the workbench page (or a person typing the URL) made. */
const ownSites = new Set(['same-origin', 'none']);

function crossSiteFailure(field: 'Origin' | 'Sec-Fetch-Site'): ApiFailure {
  return new ApiFailure(403, {
    message: `${field}: cross-site request refused; only the workbench page itself may call its API.`,
    stage: 'validation',
    field,
    advice: 'Open the workbench at its own address and use it from there.',
  });
}

/**
 * Every API request, whatever its method: refused when the browser says it comes from another
 * site (`Sec-Fetch-Site`, which pages cannot forge) or another origin (`Origin`). A request
 * with neither header (curl, scripts, tests) is not a browser's cross-site request and passes;
 * state changes must also prove they are same-origin (`stateChangeGuard`).
 */
export function crossSiteGuard(): RequestHandler {
  return (request, _response, next) => {
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined && !ownSites.has(site.toLowerCase())) {
      return next(crossSiteFailure('Sec-Fetch-Site'));
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !isOwnOrigin(origin, request.headers.host)) {
      return next(crossSiteFailure('Origin'));
    }
    next();
  };
}

const stateChangingMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * State-changing requests: `Content-Type: application/json` only (a cross-site form or a
 * `text/plain` fetch needs no preflight; JSON does), and from the same origin only.
 */
export function stateChangeGuard(): RequestHandler {
  return (request, _response, next) => {
    if (!stateChangingMethods.has(request.method)) return next();
    if (mediaType(request.headers['content-type']).type !== 'application/json') {
      return next(
        new ApiFailure(415, {
          message: 'Content-Type: send the body as application/json.',
          stage: 'validation',
          field: 'Content-Type',
        }),
      );
    }
    const origin = request.headers.origin;
    const sameOrigin =
      origin !== undefined
        ? isOwnOrigin(origin, request.headers.host)
        : request.headers['sec-fetch-site'] === 'same-origin';
    if (!sameOrigin) {
      return next(
        new ApiFailure(403, {
          message: 'Origin: only the workbench page itself may send this request.',
          stage: 'validation',
          field: 'Origin',
        }),
      );
    }
    next();
  };
}

/** A strict CSP: no inline script. Dev mode (Vite) needs its inline preamble and websocket. */
export function contentSecurityPolicy(dev: boolean): string {
  const directives = [
    "default-src 'self'",
    dev ? "script-src 'self' 'unsafe-inline'" : "script-src 'self'",
    // Inline styles (component libraries set some) cannot run code; inline scripts stay banned.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    dev ? "connect-src 'self' ws: wss:" : "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ];
  return directives.join('; ');
}

export function securityHeaders(dev: boolean): RequestHandler {
  const policy = contentSecurityPolicy(dev);
  return (_request, response, next) => {
    response.setHeader('Content-Security-Policy', policy);
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.setHeader('Referrer-Policy', 'no-referrer');
    response.setHeader('X-Frame-Options', 'DENY');
    response.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    response.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    next();
  };
}
