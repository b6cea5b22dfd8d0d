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
import { ConfigError, type OidcSettings } from '../core/config';
import { ApiFailure, parseInput } from '../core/errors';
import { createOidcSignIn, oidcCallbackPath, oidcSignInPath, type VerifiedIdentity } from './oidc';

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
export function checkListenAddress(
  host: string,
  accessToken: string | null | undefined,
  /** People sign in with OpenID Connect (WORKBENCH_OIDC_ISSUER): a sign-in too. */
  peopleSignIn = false,
): void {
  if (accessToken || peopleSignIn || isLoopbackHost(host)) return;
  throw new ConfigError(
    'WORKBENCH_ACCESS_TOKEN',
    `must be set to listen on ${host} (WORKBENCH_HOST), which is not a loopback address: without a sign-in, anyone who can reach that address could use and spend the keys the workbench holds. Set WORKBENCH_ACCESS_TOKEN to a secret of 32 or more characters, or WORKBENCH_OIDC_ISSUER for people's sign-in, or listen on 127.0.0.1.`,
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

/**
 * Who a session is: the access token's holder, or a person who signed in with OpenID Connect
 * (whose role and keys are looked up at each request, so a change applies at once).
 */
export type Principal = { kind: 'access_token' } | { kind: 'person'; personId: string };

/** Sessions by the SHA-256 of their id: what is kept here cannot be replayed as a cookie. */
export class SessionStore {
  private readonly sessions = new Map<string, { expiresAt: number; principal: Principal }>();

  constructor(
    private readonly lifetimeMs = sessionLifetimeMs,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new session: its id (for the cookie only) and when it ends. */
  create(principal: Principal = { kind: 'access_token' }): { id: string; expiresAt: number } {
    this.prune();
    while (this.sessions.size >= maxSessions) {
      const oldest = this.sessions.keys().next().value;
      if (oldest === undefined) break;
      this.sessions.delete(oldest);
    }
    const id = randomBytes(32).toString('base64url');
    const expiresAt = this.now() + this.lifetimeMs;
    this.sessions.set(digest(id).toString('hex'), { expiresAt, principal });
    return { id, expiresAt };
  }

  /** The live session of this id, or null when there is none (unknown, ended or expired). */
  find(id: string | undefined): { expiresAt: number; principal: Principal } | null {
    if (!id) return null;
    const hash = digest(id).toString('hex');
    const session = this.sessions.get(hash);
    if (session === undefined) return null;
    if (session.expiresAt <= this.now()) {
      this.sessions.delete(hash);
      return null;
    }
    return session;
  }

  /** When the session ends, or null when there is none (unknown, ended or expired). */
  expiresAt(id: string | undefined): number | null {
    return this.find(id)?.expiresAt ?? null;
  }

  /** Ends every session of a person (removed, or disabled). */
  endPerson(personId: string): void {
    for (const [hash, session] of this.sessions) {
      if (session.principal.kind === 'person' && session.principal.personId === personId) {
        this.sessions.delete(hash);
      }
    }
  }

  end(id: string | undefined): void {
    if (id) this.sessions.delete(digest(id).toString('hex'));
  }

  get size(): number {
    return this.sessions.size;
  }

  private prune(): void {
    const now = this.now();
    for (const [hash, session] of this.sessions) {
      if (session.expiresAt <= now) this.sessions.delete(hash);
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
  sameSite: 'Strict' | 'Lax' = 'Strict',
): string {
  return [
    `${name}=${value}`,
    'Path=/',
    `Max-Age=${maxAgeSeconds}`,
    `SameSite=${sameSite}`,
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

/** What a request may reach: everything (admin), or a member's own key profiles. */
export interface Viewer {
  role: 'admin' | 'member';
  /** Null when the workbench asks for no sign-in (loopback only). */
  principal: Principal | null;
  /** The profiles a member may name; null: every profile. */
  profiles: string[] | null;
}

/** A person as the session check needs them (server/people/people.ts keeps them). */
export interface SessionPerson {
  role: 'admin' | 'member';
  disabled: boolean;
  profile: string | null;
  email: string | null;
  name: string | null;
}

/** People's sign-in, when WORKBENCH_OIDC_ISSUER is set. */
export interface PeopleSignIn {
  settings: OidcSettings;
  /** The person now: undefined once removed. */
  find(personId: string): SessionPerson | undefined;
  /** Records the sign-in (and makes their key the first time); returns the person's id. */
  signIn(identity: VerifiedIdentity): Promise<string>;
}

export interface AccessControl {
  /** `GET /api/session`, `POST /api/sign-in`, `POST /api/sign-out`; mount before the guard. */
  router: Router;
  /** `/auth/oidc/…`, outside `/api` (the issuer's redirect is a cross-site navigation). */
  pageRouter: Router;
  /**
   * Every other `/api` call: a 401 without a session. Mount inside `/api`, before the body
   * parser. Sets `response.locals.viewer` (see `viewerOf`).
   */
  requireSession: RequestHandler;
  /** Pages: a redirect to the sign-in page without a session; built assets pass. */
  requirePageSession: RequestHandler;
  /** Ends a person's sessions (removed or disabled by an admin). */
  endPersonSessions(personId: string): void;
}

/** The viewer `requireSession` found; an admin when nothing ran (tests of one router). */
export function viewerOf(response: Response): Viewer {
  return (
    (response.locals.viewer as Viewer | undefined) ?? {
      role: 'admin',
      principal: null,
      profiles: null,
    }
  );
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

/**
 * The page the issuer's redirect lands on: it sends the browser on with a same-site
 * navigation, since a `SameSite=Strict` cookie set during a cross-site one is not sent on its
 * next redirect. No script: the CSP allows none inline.
 */
function continuePage(next: string): string {
  const target = next.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${target}"><title>Signed in · Gateway workbench</title></head><body><p>Signed in. <a href="${target}">Open the workbench</a>.</p></body></html>`;
}

export function createAccessControl(options: {
  /** WORKBENCH_ACCESS_TOKEN; null or undefined turns the token sign-in off. */
  token: string | null | undefined;
  /** People's sign-in (WORKBENCH_OIDC_ISSUER); null or undefined turns it off. */
  people?: PeopleSignIn | null;
  now?: () => number;
}): AccessControl {
  const token = options.token || null;
  const people = options.people ?? null;
  const required = token !== null || people !== null;
  const now = options.now ?? Date.now;
  const sessions = new SessionStore(sessionLifetimeMs, now);
  const throttle = new FailureThrottle(now);

  /** The session's principal and the person it names (when that person still may work). */
  const sessionOf = (request: Request) => {
    const session = sessions.find(readCookie(request, sessionCookieName));
    if (!session) return null;
    if (session.principal.kind === 'access_token') {
      return token ? { ...session, person: null } : null;
    }
    const person = people?.find(session.principal.personId);
    if (!person) return null;
    return { ...session, person };
  };

  const stateOf = (request: Request): SessionState => stateFor(sessionOf(request));

  const stateFor = (session: ReturnType<typeof sessionOf>): SessionState => {
    if (!required) return { required: false, signed_in: false, expires_at: null };
    const live = session !== null && session.person?.disabled !== true;
    return {
      required: true,
      signed_in: live,
      expires_at: live ? session.expiresAt : null,
      ...(people
        ? {
            oidc: { sign_in_path: oidcSignInPath, token_sign_in: token !== null },
            ...(live ? { role: session.person?.role ?? 'admin' } : {}),
            ...(live && session.principal.kind === 'person' && session.person
              ? {
                  person: {
                    id: session.principal.personId,
                    email: session.person.email,
                    name: session.person.name,
                    profile: session.person.profile,
                  },
                }
              : {}),
          }
        : {}),
    };
  };

  const clearCookies = (request: Request, response: Response) => {
    response.append('Set-Cookie', cookie(request, sessionCookieName, '', 0, true));
    response.append('Set-Cookie', cookie(request, signedInCookieName, '', 0, false));
  };

  /** A new session for `principal`, its cookies set on the response. */
  const startSession = (request: Request, response: Response, principal: Principal) => {
    // A new id at every sign-in: a session id planted before sign-in is never promoted.
    sessions.end(readCookie(request, sessionCookieName));
    const session = sessions.create(principal);
    const maxAge = Math.floor(sessionLifetimeMs / 1000);
    response.append('Set-Cookie', cookie(request, sessionCookieName, session.id, maxAge, true));
    response.append('Set-Cookie', cookie(request, signedInCookieName, '1', maxAge, false));
    return session;
  };

  const router = Router();
  router.get('/session', (request, response) => {
    response.json(stateOf(request));
  });

  router.post('/sign-in', (request, response) => {
    if (!token) {
      throw new ApiFailure(404, {
        message: people
          ? 'Sign-in with the access token is off: sign in with your identity provider.'
          : 'Sign-in is off: the workbench was started without WORKBENCH_ACCESS_TOKEN.',
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
    const principal: Principal = { kind: 'access_token' };
    const session = startSession(request, response, principal);
    response.json(stateFor({ expiresAt: session.expiresAt, principal, person: null }));
  });

  router.post('/sign-out', (request, response) => {
    sessions.end(readCookie(request, sessionCookieName));
    clearCookies(request, response);
    response.json({
      required,
      signed_in: false,
      expires_at: null,
    } satisfies SessionState);
  });

  const pageRouter = Router();
  if (people) {
    const oidc = createOidcSignIn({
      settings: people.settings,
      cookie: (request, name, value, maxAge) => cookie(request, name, value, maxAge, true, 'Lax'),
      readCookie,
      now,
      onSignedIn: async (identity, request, response, next) => {
        const personId = await people.signIn(identity);
        startSession(request, response, { kind: 'person', personId });
        response.setHeader('Cache-Control', 'no-store');
        response.type('html').send(continuePage(next));
      },
    });
    pageRouter.get(oidcSignInPath, (request, response) => oidc.start(request, response));
    pageRouter.get(oidcCallbackPath, (request, response) => oidc.callback(request, response));
  }

  /** A 401 for a request without a session, or a 403 for a person an admin disabled. */
  const refuse: RequestHandler = (request, response, next) => {
    response.setHeader('Cache-Control', 'no-store');
    // The page's flag would otherwise keep offering Sign out for a session that is gone.
    if (readCookie(request, signedInCookieName)) clearCookies(request, response);
    if (sessionOf(request)?.person?.disabled) {
      return next(
        new ApiFailure(403, {
          message: 'Your access to this workbench is disabled.',
          stage: 'session',
          type: 'person_disabled',
          advice: 'Ask an admin of this workbench to enable you again.',
        }),
      );
    }
    next(
      new ApiFailure(401, {
        message: people
          ? 'Sign in first: this workbench asks who you are.'
          : 'Sign in first: this workbench asks for its access token.',
        stage: 'session',
        type: 'sign_in_required',
        advice: people
          ? `Open ${signInPath} and sign in; a session lasts 12 hours.`
          : `Open ${signInPath} and enter the access token (WORKBENCH_ACCESS_TOKEN); a session lasts 12 hours.`,
      }),
    );
  };

  const requireSession: RequestHandler = (request, response, next) => {
    if (!required) {
      response.locals.viewer = { role: 'admin', principal: null, profiles: null } satisfies Viewer;
      return next();
    }
    if (openApiPaths.has(request.path)) return next();
    const session = sessionOf(request);
    if (!session || session.person?.disabled) return refuse(request, response, next);
    const person = session.person;
    response.locals.viewer = {
      role: person?.role ?? 'admin',
      principal: session.principal,
      profiles:
        person && person.role !== 'admin'
          ? person.profile === null
            ? []
            : [person.profile]
          : null,
    } satisfies Viewer;
    next();
  };

  const requirePageSession: RequestHandler = (request, response, next) => {
    if (!required || isApiPath(request.path)) return next();
    if (request.path === signInPath || isPublicFile(request.path)) return next();
    if (stateOf(request).signed_in) return next();
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return refuse(request, response, next);
    if (readCookie(request, signedInCookieName)) clearCookies(request, response);
    const target = `${signInPath}?next=${encodeURIComponent(request.originalUrl)}`;
    response.setHeader('Cache-Control', 'no-store');
    response.redirect(302, target);
  };

  return {
    router,
    pageRouter,
    requireSession,
    requirePageSession,
    endPersonSessions: (personId) => sessions.endPerson(personId),
  };
}
