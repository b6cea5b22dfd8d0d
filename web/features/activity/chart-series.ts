/**
 * What the charts draw, from the one `ActivitySummary`: the spend of each day split into its
 * models (the biggest few named, the rest as "Other models", so colours stay tellable apart),
 * and the requests of each day. Pure, so the figures a chart shows can be tested without one.
 */
import { chartColour, chartOtherColour } from '../../lib/chart-palette';
import type { ActivitySummary } from './activity-summary';

/** Models named in the spend chart; the rest are stacked together as "Other models". */
export const namedModelLimit = 7;

export const otherModelsLabel = 'Other models';

/** One layer of the stacked spend chart, bottom first. */
export interface SpendLayer {
  label: string;
  /** The catalog model ids this layer adds up (one, or several for "Other models"). */
  models: string[];
  /** Nano-dollars per day, in the summary's day order. */
  nanos: number[];
}

export function spendLayers(summary: ActivitySummary, limit = namedModelLimit): SpendLayer[] {
  const named = summary.models.length > limit + 1 ? summary.models.slice(0, limit) : summary.models;
  const rest = summary.models.slice(named.length);
  const layer = (label: string, models: string[]): SpendLayer => ({
    label,
    models,
    nanos: summary.days.map((day) =>
      models.reduce((total, model) => total + (day.models[model]?.costNanos ?? 0), 0),
    ),
  });
  return [
    ...named.map((model) => layer(model, [model])),
    ...(rest.length > 0 ? [layer(otherModelsLabel, rest)] : []),
  ];
}

/**
 * The colour of a layer, bottom first, from the charts' one palette; "Other models" is grey.
 */
export function layerColour(layer: SpendLayer, index: number, dark: boolean): string {
  if (layer.label === otherModelsLabel && layer.models.length > 1) return chartOtherColour(dark);
  return chartColour(index, dark);
}

/**
 * The tops of stacked bars, top layer first: bars drawn in this order, each from zero, leave
 * every layer's own share visible under the next. Values in USD, for drawing only.
 */
export function stackedTops(layers: SpendLayer[]): number[][] {
  const tops: number[][] = [];
  let running = layers[0]?.nanos.map(() => 0) ?? [];
  for (const layer of layers) {
    running = running.map((value, index) => value + (layer.nanos[index] ?? 0));
    tops.push(running);
  }
  return tops.reverse().map((values) => values.map((nanos) => nanos / 1_000_000_000));
}
