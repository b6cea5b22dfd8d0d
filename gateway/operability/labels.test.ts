import { randomBytes } from 'node:crypto';
import { KEY_PREFIX } from '../../contract/key-pattern';
import { Router } from '../http/router';
import { allRouteFamilies } from '../routes/all-routes';
import type { GatewayParts } from '../routes/route-kit';
import { attemptOutcomeOf, formOf, routeLabeller, ROUTE_NAMES } from './labels';

/** Key-shaped text made at run time (no key is written into a test). */
const keyLike = `${KEY_PREFIX}${randomBytes(20).toString('hex')}`;

/** The gateway's router, built from the one route list; its handlers are never called here. */
const router = new Router();
// With an operator token, so the operator's routes exist too.
const parts = { config: { adminToken: 'operator-token-for-the-router' } } as GatewayParts;
for (const family of allRouteFamilies) family.add(router, parts);
const labelOf = routeLabeller(allRouteFamilies);

/** The label a request gets: from what the router matched it to, as the app counts it. */
function routeNameOf(method: string, pathname: string): string {
  const found = router.match(method, pathname);
  return labelOf(found === null || found === 'wrong_method' ? [] : found.operationIds, pathname);
}

describe('routeLabeller', () => {
  it.each([
    ['POST', '/v1/chat/completions', 'chat_completions'],
    ['POST', '/v1/messages', 'messages'],
    ['POST', '/v1/messages/count_tokens', 'messages_count_tokens'],
    ['POST', '/v1/responses', 'responses'],
    ['POST', '/v1/responses/input_tokens', 'responses_input_tokens'],
    ['GET', '/v1/responses/resp_123', 'responses'],
    ['DELETE', '/v1/responses/resp_123', 'responses'],
    ['GET', '/v1/responses/resp_123/input_items', 'responses'],
    ['POST', '/v1beta/models/sim/chat-standard:generateContent', 'gemini_generate'],
    ['POST', '/v1/models/sim/chat-standard:free:streamGenerateContent', 'gemini_generate'],
    ['POST', '/v1beta/sim/chat-standard:generateContent', 'gemini_generate'],
    ['POST', '/v1beta/models/sim/chat-standard:countTokens', 'gemini_count_tokens'],
    ['POST', '/v1beta/models/sim/embed-small:batchEmbedContents', 'gemini_embed'],
    ['POST', '/v1beta/models/sim%2Fembed-small:embedContent', 'gemini_embed'],
    ['POST', '/v1/embeddings', 'embeddings'],
    ['GET', '/v1/models', 'models'],
    ['HEAD', '/v1/models', 'models'],
    ['GET', '/v1/models/sim%2Fchat-standard', 'models'],
    ['GET', '/v1/models/sim/chat-standard/endpoints', 'model_endpoints'],
    ['GET', '/v1/balance', 'balance'],
    ['GET', '/v1/key', 'key'],
    ['GET', '/v1/keys', 'keys'],
    ['POST', '/v1/keys/key_123/rotate', 'keys'],
    ['POST', '/admin/v1/keys/key_123/recharge', 'admin_keys'],
    ['GET', '/v1/generation', 'generation'],
    ['GET', '/v1/generations', 'generation'],
    ['GET', '/v1/activity', 'activity'],
    ['GET', '/healthz', 'healthz'],
    ['GET', '/readyz', 'readyz'],
    ['GET', '/metrics', 'metrics'],
    ['GET', '/openapi.json', 'openapi'],
  ])('names %s %s as %s', (method, path, name) => {
    expect(routeNameOf(method, path)).toBe(name);
  });

  it.each([
    ['GET', '/'],
    ['GET', `/v1/${keyLike}`],
    ['POST', '/v1/chat/completions/extra'],
    ['POST', '/v1beta/models/sim/chat-standard:deleteEverything'],
    ['GET', '/v1/keys/a/b/c'],
    ['GET', '/favicon.ico'],
    // A route's path under a method it does not answer (405).
    ['GET', '/v1/chat/completions'],
  ])('names anything else (%s %s) other', (method, path) => {
    expect(routeNameOf(method, path)).toBe('other');
  });

  it('gives every documented route a label of the fixed set, and keeps paths out of it', () => {
    const names = new Set<string>(ROUTE_NAMES);
    for (const family of allRouteFamilies) {
      for (const doc of family.routes)
        expect(names.has(doc.metricsRoute), doc.operationId).toBe(true);
    }
    const paths = ['/v1/x', `/v1/keys/${keyLike}/a`, `/v1beta/models/${keyLike}:getKey`, ''];
    for (const path of paths) expect(names.has(routeNameOf('POST', path))).toBe(true);
  });
});

describe('formOf', () => {
  it('gives each inference route its public form, and none to the rest', () => {
    expect(formOf('chat_completions')).toBe('chat_completions');
    expect(formOf('messages_count_tokens')).toBe('messages');
    expect(formOf('responses')).toBe('responses');
    expect(formOf('embeddings')).toBe('embeddings');
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
