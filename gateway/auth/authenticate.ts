/**
 * Finding and checking the key of a request. The `?key=` query parameter wins over any
 * header on every route. Each public form has its own headers; a Bearer token on a Gemini-form
 * route is not a gateway key there and gets 401. Messages never echo the key.
 */
import type { IncomingMessage } from 'node:http';
import { ownUnreadBody } from '../../contract/unread-body';
import { GatewayError } from '../errors';
import type { KeyRegistry } from '../keys/key-registry';
import { KEY_PREFIX } from '../keys/key-material';
import type { KeyRow } from '../store/store';

export type AuthForm = 'chat_completions' | 'messages' | 'gemini';

/** Where a key can travel. */
export type KeyPlacement = 'x-api-key' | 'x-goog-api-key' | 'bearer' | 'query';

/**
 * Where each form takes its key, as `presentedKey` reads it (`?key=` first, whatever the order
 * here, which is the order the messages name them). The OpenAPI document's security lists these.
 */
export const keyPlacements: Record<AuthForm, readonly KeyPlacement[]> = {
  chat_completions: ['bearer', 'query'],
  messages: ['x-api-key', 'bearer', 'query'],
  gemini: ['x-goog-api-key', 'query'],
};

const placementText: Record<KeyPlacement, string> = {
  'x-api-key': "'x-api-key: sk-…'",
  'x-goog-api-key': "'x-goog-api-key: sk-…'",
  bearer: "'Authorization: Bearer sk-…'",
  query: "the '?key=sk-…' query parameter",
};

/** "'x-api-key: sk-…', 'Authorization: Bearer sk-…' or the '?key=sk-…' query parameter". */
function sayHowToSend(form: AuthForm): string {
  const texts = keyPlacements[form].map((placement) => placementText[placement]);
  return texts.length === 1
    ? texts[0]!
    : `${texts.slice(0, -1).join(', ')} or ${texts[texts.length - 1]}`;
}

const howToSend: Record<AuthForm, string> = {
  chat_completions: sayHowToSend('chat_completions'),
  messages: sayHowToSend('messages'),
  gemini: sayHowToSend('gemini'),
};

const unauthorized = (message: string) =>
  new GatewayError({ status: 401, type: 'authentication_error', stage: 'authentication', message });

/**
 * The token of `Authorization: Bearer <token>`. Any other Authorization header is refused, not
 * guessed at: the vendors' clients always send `Bearer`, so a bare key there is a client bug
 * better shown than hidden. The header's value is never quoted back.
 */
function bearerToken(request: IncomingMessage, form: AuthForm): string | undefined {
  const header = request.headers.authorization?.trim();
  if (!header) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(header);
  if (match) return match[1]!.trim();
  if (/^Bearer$/i.test(header)) {
    throw unauthorized(
      `The Authorization header holds no key after 'Bearer'. Send it as ${howToSend[form]}.`,
    );
  }
  throw unauthorized(
    `The Authorization header does not start with 'Bearer ': send the key as ${howToSend[form]}.`,
  );
}

/** The key as presented, or throws the 401 that says what is wrong with how it was sent. */
export function presentedKey(request: IncomingMessage, url: URL, form: AuthForm): string {
  const fromQuery = url.searchParams.get('key');
  if (fromQuery !== null) return fromQuery;
  if (form === 'messages') {
    const header = request.headers['x-api-key'];
    if (typeof header === 'string' && header !== '') return header.trim();
  }
  if (form === 'gemini') {
    const header = request.headers['x-goog-api-key'];
    if (typeof header === 'string' && header !== '') return header.trim();
    if (request.headers.authorization) {
      throw unauthorized(
        `A Bearer token is not accepted on Gemini-form routes. Send the key as ${howToSend.gemini}.`,
      );
    }
    throw unauthorized(`No API key was sent. Send it as ${howToSend.gemini}.`);
  }
  const bearer = bearerToken(request, form);
  if (bearer) return bearer;
  throw unauthorized(`No API key was sent. Send it as ${howToSend[form]}.`);
}

/** The live key for a request, or throws 401. */
export async function authenticate(
  request: IncomingMessage,
  url: URL,
  form: AuthForm,
  registry: KeyRegistry,
): Promise<KeyRow> {
  const key = presentedKey(request, url, form);
  if (key === '') throw unauthorized(`The API key is empty. Send it as ${howToSend[form]}.`);
  if (!key.startsWith(KEY_PREFIX)) {
    throw unauthorized(
      `The API key does not start with '${KEY_PREFIX}'. Check that the whole key was copied and sent as ${howToSend[form]}.`,
    );
  }
  const row = await registry.findByKey(key);
  if (!row) {
    throw unauthorized(
      'The API key is not known to this gateway: it may be mistyped, rotated or revoked. Check the key, or create a new one.',
    );
  }
  // A body this request leaves unread is read at the account's rate (the account key and its
  // child keys together, so minting children buys no more), not its address's.
  ownUnreadBody(request, `account ${row.parentId ?? row.id}`);
  return row;
}
