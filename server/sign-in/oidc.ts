/**
 * People's sign-in with OpenID Connect (WORKBENCH_OIDC_ISSUER), beside the access token: the
 * authorization code flow with PKCE, through `openid-client`, which verifies the ID token
 * (signature, issuer, audience, expiry) and checks state and nonce.
 * - `GET /auth/oidc/sign-in?next=` keeps a pending sign-in server side (verifier, state, nonce,
 *   bound to this browser by a short-lived cookie) and sends the browser to the issuer;
 * - `GET /auth/oidc/callback` exchanges the code and hands the verified claims to `onSignedIn`,
 *   which starts the session (access.ts). Failures go back to `/sign-in?oidc_error=` in words.
 * The issuer's metadata is fetched at the first sign-in (and again after a failure), so the
 * workbench starts while the issuer is down.
 */
import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import * as client from 'openid-client';
import type { OidcSettings } from '../core/config';

export const oidcSignInPath = '/auth/oidc/sign-in';
export const oidcCallbackPath = '/auth/oidc/callback';
/** Binds a pending sign-in to the browser that started it (against login CSRF). */
export const pendingCookieName = 'workbench_oidc';

/** How long a person has at the issuer before the pending sign-in is forgotten. */
const pendingLifetimeMs = 10 * 60 * 1000;
const maxPending = 1_000;

/** What the ID token says about a person, as the workbench uses it. */
export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  /** False only when the issuer says the address is not verified. */
  emailVerified: boolean;
  name: string | null;
  groups: string[];
}

interface PendingSignIn {
  verifier: string;
  state: string;
  nonce: string;
  next: string;
  expiresAt: number;
}

export interface OidcSignIn {
  start(request: Request, response: Response): Promise<void>;
  callback(request: Request, response: Response): Promise<void>;
}

/** A path of this site to go to after signing in; anything else becomes `/`. */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith('/') || /^\/[/\\]/.test(next)) return '/';
  if (next === '/sign-in' || next.startsWith('/sign-in?')) return '/';
  return next;
}

/** The groups claim as a list of names, whatever shape the issuer gives it. */
export function groupsOf(claims: Record<string, unknown>, claim: string): string[] {
  const value = claims[claim];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  if (typeof value === 'string') return value.split(/[,\s]+/).filter((item) => item !== '');
  return [];
}

/**
 * Why a check failed, in the library's words: its outer error often says only "invalid response
 * encountered", and the cause names what (the state, the nonce, the signature).
 */
function reasonOf(error: unknown): string {
  const outer = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : null;
  return cause && cause !== outer ? `${outer} (${cause})` : outer;
}

const isLoopbackUrl = (url: URL) =>
  url.hostname === 'localhost' || url.hostname.startsWith('127.') || url.hostname === '[::1]';

export function createOidcSignIn(options: {
  settings: OidcSettings;
  /** Starts the session and answers; throws an Error whose message a person may read. */
  onSignedIn: (
    identity: VerifiedIdentity,
    request: Request,
    response: Response,
    next: string,
  ) => Promise<void>;
  cookie: (request: Request, name: string, value: string, maxAgeSeconds: number) => string;
  readCookie: (request: Request, name: string) => string | undefined;
  now?: () => number;
}): OidcSignIn {
  const { settings } = options;
  const now = options.now ?? Date.now;
  const redirectUri = `${settings.publicUrl}${oidcCallbackPath}`;
  const pending = new Map<string, PendingSignIn>();
  let configuration: Promise<client.Configuration> | null = null;

  const discover = () => {
    const issuer = new URL(settings.issuer);
    configuration ??= client
      .discovery(
        issuer,
        settings.clientId,
        undefined,
        settings.clientSecret ? client.ClientSecretBasic(settings.clientSecret) : client.None(),
        // Plain HTTP only for an issuer on this machine (tests); the configuration refuses others.
        isLoopbackUrl(issuer)
          ? { execute: [client.allowInsecureRequests], timeout: 10 }
          : { timeout: 10 },
      )
      .catch((error: unknown) => {
        configuration = null;
        throw new Error(
          `The identity provider ${settings.issuer} could not be reached or did not describe itself (${(error as Error).message}). Try again; if it goes on, check WORKBENCH_OIDC_ISSUER.`,
        );
      });
    return configuration;
  };

  const fail = (response: Response, message: string) => {
    response.setHeader('Cache-Control', 'no-store');
    response.redirect(302, `/sign-in?oidc_error=${encodeURIComponent(message.slice(0, 400))}`);
  };

  const prune = () => {
    const time = now();
    for (const [id, entry] of pending) if (entry.expiresAt <= time) pending.delete(id);
    while (pending.size >= maxPending) {
      const oldest = pending.keys().next().value;
      if (oldest === undefined) break;
      pending.delete(oldest);
    }
  };

  return {
    async start(request, response) {
      let config: client.Configuration;
      try {
        config = await discover();
      } catch (error) {
        return fail(response, (error as Error).message);
      }
      prune();
      const verifier = client.randomPKCECodeVerifier();
      const entry: PendingSignIn = {
        verifier,
        state: client.randomState(),
        nonce: client.randomNonce(),
        next: safeNext(request.query.next),
        expiresAt: now() + pendingLifetimeMs,
      };
      const id = randomBytes(32).toString('base64url');
      pending.set(id, entry);
      const target = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state: entry.state,
        nonce: entry.nonce,
      });
      // `SameSite=Lax`: the issuer sends the browser back with a cross-site navigation.
      response.append(
        'Set-Cookie',
        options.cookie(request, pendingCookieName, id, pendingLifetimeMs / 1000),
      );
      response.setHeader('Cache-Control', 'no-store');
      response.redirect(302, target.href);
    },

    async callback(request, response) {
      const id = options.readCookie(request, pendingCookieName);
      const entry = id === undefined ? undefined : pending.get(id);
      if (id !== undefined) pending.delete(id);
      response.append('Set-Cookie', options.cookie(request, pendingCookieName, '', 0));
      if (!entry || entry.expiresAt <= now()) {
        return fail(
          response,
          'This sign-in was not started in this browser, or took longer than 10 minutes: sign in again.',
        );
      }
      const issuerError = request.query.error;
      if (typeof issuerError === 'string') {
        const described = request.query.error_description;
        return fail(
          response,
          `The identity provider refused the sign-in (${issuerError.slice(0, 80)}${typeof described === 'string' ? `: ${described.slice(0, 200)}` : ''}).`,
        );
      }
      let identity: VerifiedIdentity;
      try {
        const config = await discover();
        const search = new URL(request.originalUrl, 'http://callback.invalid').search;
        const tokens = await client.authorizationCodeGrant(
          config,
          new URL(`${redirectUri}${search}`),
          {
            pkceCodeVerifier: entry.verifier,
            expectedState: entry.state,
            expectedNonce: entry.nonce,
            idTokenExpected: true,
          },
        );
        const claims = tokens.claims();
        if (!claims) throw new Error('the issuer sent no ID token');
        const record = claims as Record<string, unknown>;
        const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
        identity = {
          issuer: claims.iss,
          subject: claims.sub,
          email: text(record.email)?.toLowerCase() ?? null,
          emailVerified: record.email_verified !== false,
          name: text(record.name) ?? text(record.preferred_username),
          groups: groupsOf(record, settings.groupsClaim),
        };
      } catch (error) {
        return fail(response, `The sign-in could not be verified: ${reasonOf(error)}`);
      }
      try {
        await options.onSignedIn(identity, request, response, entry.next);
      } catch (error) {
        fail(response, (error as Error).message);
      }
    },
  };
}
