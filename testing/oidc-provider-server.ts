/**
 * A real OpenID Connect provider for tests, on loopback: the certified `oidc-provider` package,
 * which signs ID tokens with a key made at start, requires PKCE, and checks the client's secret
 * and redirect URI. Only its sign-in page is this file's: a form that takes the login name of one
 * of the given accounts (any other is refused) and grants the workbench's scopes without asking.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

export interface TestAccount {
  email: string;
  name: string;
  groups: string[];
  /** Default true. */
  emailVerified?: boolean;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Sign-ins finished per account, for tests that count them. */
  close(): Promise<void>;
}

/**
 * The provider's storage, in this process's memory: what its own quick-start adapter does, said
 * here so it does not warn on every run. A test provider keeps nothing across restarts.
 */
class MemoryAdapter {
  private static readonly entries = new Map<string, Record<string, unknown>>();
  constructor(private readonly model: string) {}
  private key(id: string) {
    return `${this.model}:${id}`;
  }
  upsert(id: string, payload: Record<string, unknown>) {
    MemoryAdapter.entries.set(this.key(id), payload);
    return Promise.resolve();
  }
  find(id: string) {
    return Promise.resolve(MemoryAdapter.entries.get(this.key(id)));
  }
  findByUid(uid: string) {
    const found = [...MemoryAdapter.entries].find(
      ([key, payload]) => key.startsWith(`${this.model}:`) && payload.uid === uid,
    );
    return Promise.resolve(found?.[1]);
  }
  findByUserCode() {
    return Promise.resolve(undefined);
  }
  consume(id: string) {
    const payload = MemoryAdapter.entries.get(this.key(id));
    if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    return Promise.resolve();
  }
  destroy(id: string) {
    MemoryAdapter.entries.delete(this.key(id));
    return Promise.resolve();
  }
  revokeByGrantId(grantId: string) {
    for (const [key, payload] of MemoryAdapter.entries) {
      if (payload.grantId === grantId) MemoryAdapter.entries.delete(key);
    }
    return Promise.resolve();
  }
}

/** Lifetimes in seconds, said so the provider does not warn about its defaults. */
const lifetimes = {
  Interaction: 600,
  Session: 3600,
  Grant: 3600,
  AccessToken: 600,
  IdToken: 600,
  AuthorizationCode: 60,
};

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

function signInPage(uid: string, problem: string | null): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test identity provider</title></head><body>
<h1>Test identity provider</h1>
${problem ? `<p role="alert">${escape(problem)}</p>` : ''}
<form method="post" action="/interaction/${escape(uid)}">
<label>Login <input name="login" autocomplete="off"></label>
<button type="submit">Sign in</button>
</form></body></html>`;
}

async function formBody(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export async function startTestOidcProvider(options: {
  accounts: Record<string, TestAccount>;
  /** The workbench's callback, `<public url>/auth/oidc/callback`. */
  redirectUris: string[];
}): Promise<TestOidcProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'workbench';
  const clientSecret = randomBytes(24).toString('base64url');
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), use: 'sig', alg: 'RS256', kid: 'test' };

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [signingKey] },
    adapter: MemoryAdapter,
    ttl: lifetimes,
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    // The claims go into the ID token itself, which is what the workbench reads.
    conformIdTokenClaims: false,
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'groups'],
    },
    interactions: {
      url: (_context: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
    },
    findAccount: (_context: unknown, id: string) => {
      const account = options.accounts[id];
      if (!account) return undefined;
      return {
        accountId: id,
        claims: () => ({
          sub: id,
          email: account.email,
          email_verified: account.emailVerified ?? true,
          name: account.name,
          groups: account.groups,
        }),
      };
    },
  });
  const handle = provider.callback();

  server.on('request', (request, response) => {
    if (!request.url?.startsWith('/interaction/')) return handle(request, response);
    void (async () => {
      const details = await provider.interactionDetails(request, response);
      if (details.prompt.name === 'consent') {
        const accountId = details.session?.accountId ?? '';
        const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
        grant.addOIDCScope(String(details.params.scope));
        grant.addOIDCClaims(['email', 'email_verified', 'name', 'groups']);
        await provider.interactionFinished(
          request,
          response,
          { consent: { grantId: await grant.save() } },
          { mergeWithLastSubmission: true },
        );
        return;
      }
      if (request.method === 'POST') {
        const login = (await formBody(request)).get('login') ?? '';
        if (options.accounts[login]) {
          await provider.interactionFinished(
            request,
            response,
            { login: { accountId: login } },
            { mergeWithLastSubmission: false },
          );
          return;
        }
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(signInPage(details.uid, `No account "${login}".`));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(signInPage(details.uid, null));
    })().catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(`test provider: ${(error as Error).message}`);
    });
  });

  return {
    issuer,
    clientId,
    clientSecret,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
