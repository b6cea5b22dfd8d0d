/**
 * `npm run bench:router`: the cost of finding a request's route, in the gateway's own router and
 * in the two routers a framework would bring (Hono's RegExpRouter and TrieRouter, Fastify's
 * find-my-way), over the gateway's own routes. Decision record 0021 quotes the figures.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import findMyWay from 'find-my-way';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { TrieRouter } from 'hono/router/trie-router';
import { createGateway } from '../gateway/app';
import { loadGatewayConfig } from '../gateway/config';
import { Router } from '../gateway/http/router';
import { createLogger } from '../gateway/logger';

/**
 * The gateway's pattern routes as the other routers write them. Gemini's `model:method` target
 * and model ids holding a `/` have no plain parameter syntax there; they take a regular
 * expression or a wildcard, which is what the gateway does too.
 */
const patterns: Array<[method: string, template: string]> = [
  ['GET', '/v1/models/:id'],
  ['GET', '/v1/models/:author/:slug/endpoints'],
  ['GET', '/v1/models/:author/:slug/endpoints/stats'],
  ['GET', '/v1/keys/:id'],
  ['PATCH', '/v1/keys/:id'],
  ['DELETE', '/v1/keys/:id'],
  ['POST', '/v1/keys/:id/rotate'],
  ['GET', '/v1/keys/:id/events'],
  ['GET', '/v1/keys/:id/periods'],
  ['GET', '/v1/webhooks/:id'],
  ['PATCH', '/v1/webhooks/:id'],
  ['DELETE', '/v1/webhooks/:id'],
  ['POST', '/v1/webhooks/:id/test'],
  ['GET', '/v1/webhooks/:id/deliveries'],
  ['GET', '/v1/responses/:id'],
  ['DELETE', '/v1/responses/:id'],
  ['GET', '/v1/responses/:id/input_items'],
  ['POST', '/v1beta/models/*'],
];

/** What a client sends, weighted as traffic is: generation first, then the odd admin call. */
const requests: Array<[method: string, pathname: string]> = [
  ['POST', '/v1/chat/completions'],
  ['POST', '/v1/chat/completions'],
  ['POST', '/v1/messages'],
  ['POST', '/v1/responses'],
  ['POST', '/v1/embeddings'],
  ['POST', '/v1beta/models/sim/chat-standard:streamGenerateContent'],
  ['GET', '/v1/models'],
  ['GET', '/v1/keys/key_0123456789abcdef'],
  ['GET', '/v1/models/sim/chat-standard/endpoints'],
  ['GET', '/v1/responses/resp_0123456789abcdef'],
];

async function gatewayRoutes() {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-router-'));
  const gateway = await createGateway(
    loadGatewayConfig({ GATEWAY_DB: path.join(folder, 'gateway.db') }),
    { logger: createLogger('silent') },
  );
  const routes = gateway.routes();
  // The record writer's thread is unref'd: without a timer, the loop would end inside close().
  const alive = setInterval(() => undefined, 1000);
  gateway.settlement.stop();
  await gateway.close();
  clearInterval(alive);
  fs.rmSync(folder, { recursive: true, force: true });
  // The same registrations in a router of the gateway's own kind, as createGateway builds it.
  const router = new Router();
  for (const route of routes) {
    if (route.fallback) router.addFallback(route.method, route.path as RegExp, route.handler);
    else router.add(route.method, route.path, route.handler, route.operationIds);
  }
  return { routes, router };
}

function time(name: string, match: (method: string, pathname: string) => unknown) {
  const rounds = 200_000;
  for (let index = 0; index < 20_000; index++) match(...requests[index % requests.length]!);
  const started = process.hrtime.bigint();
  for (let index = 0; index < rounds; index++) {
    if (!match(...requests[index % requests.length]!)) throw new Error(`${name} found no route`);
  }
  const nanos = Number(process.hrtime.bigint() - started) / rounds;
  console.log(`${name.padEnd(28)} ${nanos.toFixed(0).padStart(6)} ns per match`);
}

const { routes, router } = await gatewayRoutes();
const exact = routes.filter((route) => typeof route.path === 'string' && !route.fallback);
const handler = () => undefined;

const hono = new RegExpRouter<typeof handler>();
const trie = new TrieRouter<typeof handler>();
const fastify = findMyWay();
for (const route of exact) {
  hono.add(route.method, route.path as string, handler);
  trie.add(route.method, route.path as string, handler);
  fastify.on(route.method as 'GET', route.path as string, handler);
}
for (const [method, template] of patterns) {
  hono.add(method, template, handler);
  trie.add(method, template, handler);
  fastify.on(method as 'GET', template, handler);
}

console.log(
  `${routes.length} registrations, ${requests.length} request shapes, Node ${process.version}`,
);
time('gateway Router', (method, pathname) => {
  const found = router.match(method, pathname);
  return found !== null && found !== 'wrong_method';
});
time('hono RegExpRouter', (method, pathname) => hono.match(method, pathname)[0].length > 0);
time('hono TrieRouter', (method, pathname) => trie.match(method, pathname)[0].length > 0);
time('find-my-way', (method, pathname) => fastify.find(method as 'GET', pathname) !== null);
