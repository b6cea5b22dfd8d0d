import { randomBytes } from 'node:crypto';
import { KEY_PREFIX } from '../../contract/key-pattern';
import { attemptOutcomeOf, formOf, routeNameOf, ROUTE_NAMES } from './labels';

/** Key-shaped text made at run time (no key is written into a test). */
const keyLike = `${KEY_PREFIX}${randomBytes(20).toString('hex')}`;

describe('routeNameOf', () => {
  it.each([
    ['/v1/chat/completions', 'chat_completions'],
    ['/v1/messages', 'messages'],
    ['/v1/messages/count_tokens', 'messages_count_tokens'],
    ['/v1beta/models/sim/chat-standard:generateContent', 'gemini_generate'],
    ['/v1/models/sim/chat-standard:free:streamGenerateContent', 'gemini_generate'],
    ['/v1beta/models/sim/chat-standard:countTokens', 'gemini_count_tokens'],
    ['/v1beta/models/sim/embed-small:batchEmbedContents', 'gemini_embed'],
    ['/v1/embeddings', 'embeddings'],
    ['/v1/models', 'models'],
    ['/v1/models/sim/chat-standard/endpoints', 'model_endpoints'],
    ['/v1/balance', 'balance'],
    ['/v1/key', 'key'],
    ['/v1/keys', 'keys'],
    ['/v1/keys/key_123/rotate', 'keys'],
    ['/admin/v1/keys/key_123/recharge', 'admin_keys'],
    ['/v1/generation', 'generation'],
    ['/v1/generations', 'generation'],
    ['/v1/activity', 'activity'],
    ['/healthz', 'healthz'],
    ['/readyz', 'readyz'],
    ['/metrics', 'metrics'],
  ])('names %s as %s', (path, name) => {
    expect(routeNameOf(path)).toBe(name);
  });

  it.each([
    '/',
    `/v1/${keyLike}`,
    '/v1/chat/completions/extra',
    '/v1beta/models/sim/chat-standard:deleteEverything',
    '/v1/keys/a/b/c',
    '/favicon.ico',
  ])('names anything else (%s) other', (path) => {
    expect(routeNameOf(path)).toBe('other');
  });

  it('keeps every route name to the fixed set, whatever the path', () => {
    const names = new Set<string>(ROUTE_NAMES);
    const paths = ['/v1/x', `/v1/keys/${keyLike}/a`, `/v1beta/models/${keyLike}:getKey`, ''];
    for (const path of paths) expect(names.has(routeNameOf(path))).toBe(true);
  });
});

describe('formOf', () => {
  it('gives each inference route its public form, and none to the rest', () => {
    expect(formOf('chat_completions')).toBe('chat_completions');
    expect(formOf('messages_count_tokens')).toBe('messages');
    expect(formOf('gemini_generate')).toBe('gemini');
    expect(formOf('balance')).toBe('none');
    expect(formOf('other')).toBe('none');
  });
});

describe('attemptOutcomeOf', () => {
  it.each([
    [200, '2xx'],
    [429, '4xx'],
    [503, '5xx'],
    [999, 'other'],
    ['cooling_down', 'cooling_down'],
    ['connect', 'connect'],
    ['first_byte_timeout', 'first_byte_timeout'],
    ['something an upstream made up', 'other'],
  ])('labels %s as %s', (status, outcome) => {
    expect(attemptOutcomeOf(status)).toBe(outcome);
  });
});
