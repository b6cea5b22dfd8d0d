/**
 * The workbench's sign-in (WORKBENCH_ACCESS_TOKEN). Without the token nothing here applies and the
 * workbench behaves as it always did; it then refuses to listen anywhere but loopback. With it,
 * every page and every `/api` call needs a session:
 * - `POST /api/sign-in {token}` compares the token in constant time and starts a session: a
 *   random id, held server side, sent as an httpOnly, `SameSite=Strict` cookie (`Secure` when the
 *   page came over HTTPS) that expires with the session (12 hours). The token itself is never put
 *   in a cookie, an answer or a log line.
 * - `POST /api/sign-out` ends it; `GET /api/session` says whether sign-in is on and who is in.
 * - A page without a session is redirected to `/sign-in?next=…`; an API call gets a 401.
 * Failed attempts are throttled per client address, so the token cannot be guessed online.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { signInRequestSchema, type SessionState } from '../../contract/workbench-api';
import { ConfigError } from '../core/config';
import { ApiFailure, parseInput } from '../core/errors';

/** The session cookie: a random id, never the token. */
export const sessionCookieName = 'workbench_session';
/**
 * A cookie the page may read, holding nothing but "1": it tells the UI to offer Sign out without
 * asking the server. It grants nothing; the session cookie is what the server checks.
 */
export const signedInCookieName = 'workbench_signed_in';
/** How long a session lasts from sign-in. */
export const sessionLifetimeMs = 12 * 60 * 60 * 1000;
/** The page that asks for the token; it and the built assets are served without a session. */
export const signInPath = '/sign-in';

/** Failed sign-ins allowed per client address in `failureWindowMs` before it must wait. */
const maxFailures = 5;
const failureWindowMs = 60_000;
/** Sessions kept at most; the oldest go first (each sign-in makes one). */
const maxSessions = 1_000;

/** True for an address only this machine can reach: 127.0.0.0/8, ::1, localhost. */
export function isLoopbackHost(host: string): boolean {
  const name = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (name === 'localhost') return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  if (isIP(name) === 6) return name === '::1' || /^::ffff:127\./.test(name);
  return false;
}

/**
 * Refuses a non-loopback listen address without an access token: anyone who could reach the
 * workbench there could spend every key it holds.
 */
export function checkListenAddress(host: string, accessToken: string | null | undefined): void {
  if (accessToken || isLoopbackHost(host)) return;
  throw new ConfigError(
    'WORKBENCH_ACCESS_TOKEN',
    `must be set to listen on ${host} (WORKBENCH_HOST), which is not a loopback address: without a sign-in, anyone who can reach that address could use and spend the keys the workbench holds. Set WORKBENCH_ACCESS_TOKEN to a secret of 32 or more characters, or listen on 127.0.0.1.`,
  );
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * True when `given` is the token. Both are hashed first, so the comparison takes the same time
 * whatever the lengths and wherever the first difference is.
 */
export function tokenMatches(expected: string, given: string): boolean {
  return timingSafeEqual(digest(expected), digest(given));
}

/** Sessions by the SHA-256 of their id: what is kept here cannot be replayed as a cookie. */
export class SessionStore {
  private readonly sessions = new Map<string, number>();

  constructor(
    private readonly lifetimeMs = sessionLifetimeMs,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new session: its id (for the cookie only) and when it ends. */
  create(): { id: string; expiresAt: number } {
    this.prune();
    while (this.sessions.size >= maxSessions) {
      const oldest = this.sessions.keys().next().value;
      if (oldest === undefined) break;
      this.sessions.delete(oldest);
    }
    const id = randomBytes(32).toString('base64url');
    const expiresAt = this.now() + this.lifetimeMs;
    this.sessions.set(digest(id).toString('hex'), expiresAt);
    return { id, expiresAt };
  }

  /** When the session ends, or null when there is none (unknown, ended or expired). */
  expiresAt(id: string | undefined): number | null {
    if (!id) return null;
    const hash = digest(id).toString('hex');
    const expiresAt = this.sessions.get(hash);
    if (expiresAt === undefined) return null;
    if (expiresAt <= this.now()) {
      this.sessions.delete(hash);
      return null;
    }
    return expiresAt;
  }

  end(id: string | undefined): void {
    if (id) this.sessions.delete(digest(id).toString('hex'));
  }

  get size(): number {
    return this.sessions.size;
  }

  private prune(): void {
    const now = this.now();
    for (const [hash, expiresAt] of this.sessions) {
      if (expiresAt <= now) this.sessions.delete(hash);
    }
  }
}

/** One cookie's value from the `Cookie` header; undefined when absent. */
export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator === -1) continue;
    if (part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}

/**
 * True when the page came over HTTPS: directly, or through a proxy that says so. Believing a
 * forged `X-Forwarded-Proto` only makes the cookie `Secure`, which cannot weaken it.
 */
function cameOverHttps(request: Request): boolean {
  const forwarded = request.headers['x-forwarded-proto'];
  const proto = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
  return request.secure || proto?.toLowerCase() === 'https';
}

function cookie(
  request: Request,
  name: string,
  value: string,
  maxAgeSeconds: number,
  httpOnly: boolean,
): string {
  return [
    `${name}=${value}`,
    'Path=/',
    `Max-Age=${maxAgeSeconds}`,
    'SameSite=Strict',
    ...(httpOnly ? ['HttpOnly'] : []),
    ...(cameOverHttps(request) ? ['Secure'] : []),
  ].join('; ');
}

/** Failed attempts per client address, in a sliding window. */
class FailureThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Milliseconds until this client may try again; 0 when it may now. */
  waitMs(client: string): number {
    const recent = this.recent(client);
    if (recent.length < maxFailures) return 0;
    return Math.max(0, recent[0]! + failureWindowMs - this.now());
  }

  fail(client: string): void {
    const recent = this.recent(client);
    recent.push(this.now());
    this.failures.set(client, recent);
    // Forget clients that stopped trying, so the map cannot grow without end.
    if (this.failures.size > 10_000) {
      for (const [address] of this.failures) {
        if (this.recent(address).length === 0) this.failures.delete(address);
      }
    }
  }

  succeed(client: string): void {
    this.failures.delete(client);
  }

  private recent(client: string): number[] {
    const cutoff = this.now() - failureWindowMs;
    return (this.failures.get(client) ?? []).filter((time) => time > cutoff);
  }
}

export interface AccessControl {
  /** `GET /api/session`, `POST /api/sign-in`, `POST /api/sign-out`; mount before the guard. */
  router: Router;
  /** Every other `/api` call: a 401 without a session. Mount inside `/api`, before the body parser. */
  requireSession: RequestHandler;
  /** Pages: a redirect to the sign-in page without a session; built assets pass. */
  requirePageSession: RequestHandler;
}

const isApiPath = (path: string) => path === '/api' || path.startsWith('/api/');

/** The API routes open without a session (paths inside `/api`). */
const openApiPaths = new Set(['/session', '/sign-in', '/sign-out']);

/**
 * Files the sign-in page itself needs, served without a session: the build's hashed assets and
 * other files at the root (favicon), and Vite's own modules in development. They hold no data
 * and no secret (nothing secret is ever put in the bundle).
 */
function isPublicFile(path: string): boolean {
  return (
    path.startsWith('/assets/') ||
    path.startsWith('/@') ||
    path.startsWith('/node_modules/') ||
    (/^\/[^/]+\.[a-z0-9]+$/i.test(path) && !path.endsWith('.html')) ||
    // Development: the UI's source modules (`/main.tsx`, `/features/…/x.tsx`).
    /\.(tsx?|css|svg|png|woff2?)$/i.test(path)
  );
}

export function createAccessControl(options: {
  /** WORKBENCH_ACCESS_TOKEN; null or undefined turns sign-in off. */
  token: string | null | undefined;
  now?: () => number;
}): AccessControl {
  const token = options.token || null;
  const now = options.now ?? Date.now;
  const sessions = new SessionStore(sessionLifetimeMs, now);
  const throttle = new FailureThrottle(now);

  const stateOf = (request: Request): SessionState => {
    if (!token) return { required: false, signed_in: false, expires_at: null };
    const expiresAt = sessions.expiresAt(readCookie(request, sessionCookieName));
    return { required: true, signed_in: expiresAt !== null, expires_at: expiresAt };
  };

  const clearCookies = (request: Request, response: Response) => {
    response.append('Set-Cookie', cookie(request, sessionCookieName, '', 0, true));
    response.append('Set-Cookie', cookie(request, signedInCookieName, '', 0, false));
  };

  const router = Router();
  router.get('/session', (request, response) => {
    response.json(stateOf(request));
  });

  router.post('/sign-in', (request, response) => {
    if (!token) {
      throw new ApiFailure(404, {
        message: 'Sign-in is off: the workbench was started without WORKBENCH_ACCESS_TOKEN.',
        stage: 'session',
      });
    }
    const client = request.socket.remoteAddress ?? 'unknown';
    const waitMs = throttle.waitMs(client);
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      response.setHeader('Retry-After', String(seconds));
      throw new ApiFailure(429, {
        message: `Too many wrong tokens from this address: wait ${seconds} s before trying again.`,
        stage: 'session',
        type: 'sign_in_throttled',
      });
    }
    const input = parseInput(signInRequestSchema, request.body, 'body');
    if (!tokenMatches(token, input.token)) {
      throttle.fail(client);
      throw new ApiFailure(401, {
        message: 'That is not the workbench’s access token.',
        stage: 'session',
        field: 'token',
        type: 'wrong_token',
        advice:
          'Enter the value of WORKBENCH_ACCESS_TOKEN the workbench was started with; ask whoever runs it.',
      });
    }
    throttle.succeed(client);
    // A new id at every sign-in: a session id planted before sign-in is never promoted.
    sessions.end(readCookie(request, sessionCookieName));
    const session = sessions.create();
    const maxAge = Math.floor(sessionLifetimeMs / 1000);
    response.append('Set-Cookie', cookie(request, sessionCookieName, session.id, maxAge, true));
    response.append('Set-Cookie', cookie(request, signedInCookieName, '1', maxAge, false));
    response.json({
      required: true,
      signed_in: true,
      expires_at: session.expiresAt,
    } satisfies SessionState);
  });

  router.post('/sign-out', (request, response) => {
    sessions.end(readCookie(request, sessionCookieName));
    clearCookies(request, response);
    response.json({
      required: token !== null,
      signed_in: false,
      expires_at: null,
    } satisfies SessionState);
  });

  /** A 401 for a request without a session. */
  const refuse: RequestHandler = (request, response, next) => {
    response.setHeader('Cache-Control', 'no-store');
    // The page's flag would otherwise keep offering Sign out for a session that is gone.
    if (readCookie(request, signedInCookieName)) clearCookies(request, response);
    next(
      new ApiFailure(401, {
        message: 'Sign in first: this workbench asks for its access token.',
        stage: 'session',
        type: 'sign_in_required',
        advice: `Open ${signInPath} and enter the access token (WORKBENCH_ACCESS_TOKEN); a session lasts 12 hours.`,
      }),
    );
  };

  const requireSession: RequestHandler = (request, response, next) => {
    if (!token || openApiPaths.has(request.path) || stateOf(request).signed_in) return next();
    refuse(request, response, next);
  };

  const requirePageSession: RequestHandler = (request, response, next) => {
    if (!token || isApiPath(request.path)) return next();
    if (request.path === signInPath || isPublicFile(request.path)) return next();
    if (stateOf(request).signed_in) return next();
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return refuse(request, response, next);
    if (readCookie(request, signedInCookieName)) clearCookies(request, response);
    const target = `${signInPath}?next=${encodeURIComponent(request.originalUrl)}`;
    response.setHeader('Cache-Control', 'no-store');
    response.redirect(302, target);
  };

  return { router, requireSession, requirePageSession };
}
