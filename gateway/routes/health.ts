/**
 * Probes and metrics for load balancers and Prometheus, with no key and nothing of one in any
 * answer: `GET /healthz` (the process is alive: no dependency is asked), `GET /readyz` (the store
 * and every other readiness check answer within a second, else 503 naming what failed) and
 * `GET /metrics` (Prometheus text format). HEAD works as GET; other methods get the router's 405.
 */
import { z } from 'zod';
import { sendJson } from '../http/respond';
import {
  checkReadiness,
  checkResultSchema,
  loggableMessage,
  type ReadinessCheck,
} from '../operability/readiness';
import { addRoute, jsonContent, named, type RouteDoc, type RouteFamily } from './route-doc';

const noStore = { 'cache-control': 'no-store' };

const livenessSchema = z.object({ status: z.literal('ok') });
const readinessSchema = z.object({
  status: z.enum(['ok', 'unavailable']),
  checks: z.array(checkResultSchema),
});

const probe = (doc: Omit<RouteDoc, 'tag' | 'auth' | 'errors'>): RouteDoc => ({
  ...doc,
  tag: 'Operability',
  auth: 'none',
  errors: { form: 'gateway', statuses: [] },
});

const liveness = probe({
  operationId: 'getLiveness',
  metricsRoute: 'healthz',
  method: 'GET',
  path: '/healthz',
  summary: 'Whether the process is alive',
  description: 'Asks no dependency.',
  responses: { 200: jsonContent('Alive.', named('Liveness', livenessSchema)) },
});

const readiness = probe({
  operationId: 'getReadiness',
  metricsRoute: 'readyz',
  method: 'GET',
  path: '/readyz',
  summary: 'Whether the store and other dependencies answer',
  description: 'Each check has a second; a failed one is named, with a reason from a fixed set.',
  responses: {
    200: jsonContent('Ready.', named('Readiness', readinessSchema)),
    503: jsonContent(
      'Not ready: the failed checks are named.',
      named('Readiness', readinessSchema),
    ),
  },
});

const metrics = probe({
  operationId: 'getMetrics',
  metricsRoute: 'metrics',
  method: 'GET',
  path: '/metrics',
  summary: "This instance's Prometheus metrics",
  responses: {
    200: {
      description: 'Prometheus text format 0.0.4.',
      content: { 'text/plain': { text: 'Prometheus text exposition format.' } },
    },
  },
});

export const healthRoutes: RouteFamily<'logger' | 'metrics' | 'readiness' | 'store'> = {
  routes: [liveness, readiness, metrics],
  add(router, parts) {
    addRoute(router, liveness, ({ response }) => {
      sendJson(response, 200, { status: 'ok' }, noStore);
    });

    addRoute(router, readiness, async ({ response }) => {
      // Read at each probe: checks added after start-up (or replaced in a test) are asked too.
      const checks: ReadinessCheck[] = [
        { name: 'store', ping: () => parts.store.ping() },
        ...(parts.readiness ?? []),
      ];
      const report = await checkReadiness(checks);
      for (const { name, error } of report.errors) {
        parts.logger.warn(
          { check: name, detail: loggableMessage(error) },
          'readiness check failed',
        );
      }
      sendJson(
        response,
        report.ready ? 200 : 503,
        { status: report.ready ? 'ok' : 'unavailable', checks: report.checks },
        noStore,
      );
    });

    addRoute(router, metrics, async ({ response }) => {
      const text = await parts.metrics.text();
      response.writeHead(200, {
        'content-type': parts.metrics.contentType,
        'content-length': Buffer.byteLength(text),
        ...noStore,
      });
      response.end(text);
    });
  },
};
