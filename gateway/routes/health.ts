/**
 * Probes and metrics for load balancers and Prometheus, with no key and nothing of one in any
 * answer: `GET /healthz` (the process is alive: no dependency is asked), `GET /readyz` (the store
 * and every other readiness check answer within a second, else 503 naming what failed) and
 * `GET /metrics` (Prometheus text format). HEAD works as GET; other methods get the router's 405.
 */
import { sendJson } from '../http/respond';
import type { Router } from '../http/router';
import { checkReadiness, loggableMessage, type ReadinessCheck } from '../operability/readiness';
import type { GatewayParts } from './route-kit';

const noStore = { 'cache-control': 'no-store' };

export function addHealthRoutes(router: Router, parts: GatewayParts): void {
  router.add('GET', '/healthz', ({ response }) => {
    sendJson(response, 200, { status: 'ok' }, noStore);
  });

  router.add('GET', '/readyz', async ({ response }) => {
    // Read at each probe: checks added after start-up (or replaced in a test) are asked too.
    const checks: ReadinessCheck[] = [
      { name: 'store', ping: () => parts.store.ping() },
      ...(parts.readiness ?? []),
    ];
    const report = await checkReadiness(checks);
    for (const { name, error } of report.errors) {
      parts.logger.warn({ check: name, detail: loggableMessage(error) }, 'readiness check failed');
    }
    sendJson(
      response,
      report.ready ? 200 : 503,
      { status: report.ready ? 'ok' : 'unavailable', checks: report.checks },
      noStore,
    );
  });

  router.add('GET', '/metrics', async ({ response }) => {
    const text = await parts.metrics.text();
    response.writeHead(200, {
      'content-type': parts.metrics.contentType,
      'content-length': Buffer.byteLength(text),
      ...noStore,
    });
    response.end(text);
  });
}
