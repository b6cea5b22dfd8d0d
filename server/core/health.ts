/**
 * `GET /api/health` and `GET /api/profiles`: is the gateway reachable (and, in embedded mode, is
 * its process running or being restarted), and which keys are held.
 */
import { viewerOf } from '../sign-in/access';
import { Router } from 'express';
import type { Health, Profile } from '../../contract/workbench-api';
import { fetchBalance } from '../keys/balance';
import type { WorkbenchContext } from './context';
import { unreachableAdvice } from './errors';
import { GatewayCallError } from './gateway-client';

/** Status pages must answer quickly even when the gateway does not. */
const quickTimeoutMs = 5_000;

export function createHealthRouter(context: WorkbenchContext): Router {
  const router = Router();
  const quick = () => Math.min(quickTimeoutMs, context.gateway.timeouts.firstByteMs);

  router.get('/health', async (_request, response) => {
    const embedded = context.embeddedGateway?.() ?? null;
    const health: Health = {
      mode: context.mode,
      gateway_base_url: context.gateway.baseUrl,
      reachable: false,
      latency_ms: null,
      ...(embedded ? { embedded_gateway: embedded } : {}),
    };
    if (embedded && embedded.state !== 'running') {
      // The supervisor already knows: no call needed to say the gateway is down.
      health.error =
        embedded.state === 'restarting'
          ? `The embedded gateway stopped (${embedded.last_exit ?? 'it exited'}); restarting it (attempt ${embedded.attempt}).`
          : 'The embedded gateway has stopped.';
      health.advice = unreachableAdvice(context.mode, 'banner');
      context.catalog.forget();
      response.json(health);
      return;
    }
    try {
      // The catalog needs no key, so this confirms connectivity without spending one.
      const answer = await context.gateway.request({
        method: 'GET',
        path: '/v1/models',
        firstByteTimeoutMs: quick(),
      });
      answer.abort();
      health.reachable = true;
      health.latency_ms = answer.ttfbMs;
      if (answer.status >= 500)
        health.error = `The gateway answers, but with HTTP ${answer.status}.`;
    } catch (error) {
      if (!(error instanceof GatewayCallError)) throw error;
      health.error = `${error.message.replace(/\.$/, '')}; stage: ${error.stage}.`;
      health.advice = unreachableAdvice(context.mode, 'banner');
    }
    // A gateway that fails its health check would fail a catalog fetch too: a reload during the
    // outage then says so, rather than serving the cached catalog as if nothing were wrong.
    if (health.error) context.catalog.forget();
    response.json(health);
  });

  router.get('/profiles', async (_request, response) => {
    // A member sees their own profile only (people/scope.ts).
    const visible = viewerOf(response).profiles;
    const names = context.profiles.names().filter((name) => visible?.includes(name) ?? true);
    // Identity comes from the balance call; it is looked up once per key and then remembered.
    await Promise.all(
      names
        .filter((name) => !context.profiles.hasIdentity(name))
        .map(async (name) => {
          try {
            const { balance } = await fetchBalance(context, context.profiles.keyOf(name), {
              firstByteTimeoutMs: quick(),
            });
            context.profiles.rememberIdentity(name, balance.identity);
          } catch {
            // Unknown key or gateway down: the identity stays null, as the contract allows.
          }
        }),
    );
    const profiles: Profile[] = names.map((name) => context.profiles.describe(name));
    response.json({ profiles });
  });
  return router;
}
