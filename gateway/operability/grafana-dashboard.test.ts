/**
 * The Grafana dashboard in docs/ is built on the gateway's own metrics: every metric a query
 * names exists in the registry, and every label it groups by is one that metric has. A metric
 * renamed or dropped fails here, not on an operator's empty panel.
 */
import fs from 'node:fs';
import path from 'node:path';
import { GatewayMetrics } from './gateway-metrics';

type Dashboard = { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };

const dashboard = JSON.parse(
  fs.readFileSync(path.resolve(__dirname, '../../docs/grafana-dashboard.json'), 'utf8'),
) as Dashboard;
const queries = dashboard.panels.flatMap((panel) =>
  panel.targets.map((target) => ({ panel: panel.title, expr: target.expr })),
);

/** The series names a histogram or summary adds to its own. */
const SERIES_SUFFIX = /_(bucket|sum|count)$/;

describe('docs/grafana-dashboard.json', () => {
  const metrics = new GatewayMetrics({ reservationsHeld: () => 0, clusterWide: false });
  const registered = new Map(
    metrics.registry.getMetricsAsArray().map((metric) => [metric.name, metric]),
  );
  const metricOf = (series: string) =>
    registered.get(series) ?? registered.get(series.replace(SERIES_SUFFIX, ''));

  it('has panels for requests, errors, spend, overhead, upstream latency and breakers', () => {
    const named = queries.map((query) => query.expr).join('\n');
    for (const metric of [
      'gateway_requests_total',
      'gateway_spend_usd_total',
      'gateway_overhead_seconds_bucket',
      'gateway_upstream_attempt_duration_seconds_bucket',
      'gateway_provider_breaker_open',
    ])
      expect(named).toContain(metric);
  });

  it.each(queries)('names only metrics and labels that exist: $panel', ({ expr }) => {
    const series = [...expr.matchAll(/\bgateway_[a-z0-9_]+/g)].map((match) => match[0]);
    expect(series.length).toBeGreaterThan(0);
    for (const name of series) {
      const metric = metricOf(name);
      expect(metric, `${name} is not a metric of the gateway`).toBeDefined();
      const labels = new Set([
        ...((metric as unknown as { labelNames?: string[] }).labelNames ?? []),
        'le',
      ]);
      for (const grouping of expr.matchAll(/\bby \(([^)]*)\)/g))
        for (const label of grouping[1]!.split(',').map((text) => text.trim()))
          expect(labels, `${name} has no label ${label}`).toContain(label);
    }
  });
});
