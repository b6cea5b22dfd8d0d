/**
 * The Activity page's charts: spend per day stacked by model, and requests per day, with the
 * same figures as a table for people who do not see the canvas. Everything comes from one
 * `ActivitySummary`, the source of the totals and the CSV too. This module (and uPlot with it) is
 * loaded only when the Activity page shows charts: the page imports it with `React.lazy`.
 */
import { useMemo } from 'react';
import { DataTable } from '../../../components/data-table';
import { formatDay } from '../../../lib/utc-days';
import { formatNanosUsd } from '../../../../contract/usd-nanos';
import type { ActivitySummary } from '../activity-summary';
import { layerColour, spendLayers, stackedTops } from '../chart-series';
import { DailyBarChart } from './daily-bar-chart';
import { chartColour } from '../../../lib/chart-palette';
import { usePrefersDark } from '../../../lib/use-prefers-dark';

const usdTick = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  maximumSignificantDigits: 3,
});
const countFormat = new Intl.NumberFormat('en-US');

const plural = (count: number, word: string) =>
  `${countFormat.format(count)} ${word}${count === 1 ? '' : 's'}`;

function Swatch({ colour }: { colour: string }) {
  return (
    <span
      aria-hidden="true"
      className="inline-block size-2.5 shrink-0 rounded-sm"
      style={{ backgroundColor: colour }}
    />
  );
}

export default function ActivityCharts({
  summary,
  onSelectDay,
}: {
  summary: ActivitySummary;
  /** A bar chosen: the table shows that day's requests. */
  onSelectDay?(date: string): void;
}) {
  const dark = usePrefersDark();
  const dates = useMemo(() => summary.days.map((day) => day.date), [summary]);
  const layers = useMemo(() => spendLayers(summary), [summary]);
  const colours = layers.map((layer, index) => layerColour(layer, index, dark));
  const spendSeries = useMemo(() => {
    const tops = stackedTops(layers);
    // Top layer first: see stackedTops.
    return tops.map((values, index) => {
      const layerIndex = layers.length - 1 - index;
      const layer = layers[layerIndex]!;
      return { label: layer.label, colour: layerColour(layer, layerIndex, dark), values };
    });
  }, [layers, dark]);
  const requestSeries = useMemo(
    () => [
      {
        label: 'Requests',
        colour: chartColour(0, dark),
        values: summary.days.map((day) => day.requests),
      },
    ],
    [summary, dark],
  );
  const { totals } = summary;

  const spendOfDay = (index: number) => {
    const day = summary.days[index];
    if (!day) return null;
    const shares = layers
      .map((layer, layerIndex) => ({
        layer,
        colour: colours[layerIndex]!,
        nanos: layer.nanos[index] ?? 0,
      }))
      .filter((share) => share.nanos > 0)
      .reverse();
    return (
      <>
        <p className="font-semibold">{formatDay(day.date, true)}</p>
        {shares.length > 0 ? (
          <ul className="mt-1 flex flex-col gap-0.5">
            {shares.map((share) => (
              <li key={share.layer.label} className="flex items-center gap-1.5">
                <Swatch colour={share.colour} />
                <span className="min-w-0 flex-1 truncate">{share.layer.label}</span>
                <span className="font-mono">{formatNanosUsd(share.nanos)}</span>
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-1 text-zinc-600 dark:text-zinc-400">No spend</p>
        )}
        <p className="mt-1 flex justify-between gap-2 border-t border-zinc-200 pt-1 font-semibold dark:border-zinc-700">
          <span>Total</span>
          <span className="font-mono">{formatNanosUsd(day.costNanos)}</span>
        </p>
      </>
    );
  };

  const requestsOfDay = (index: number) => {
    const day = summary.days[index];
    if (!day) return null;
    return (
      <>
        <p className="font-semibold">{formatDay(day.date, true)}</p>
        <p className="mt-1">{plural(day.requests, 'request')}</p>
        <p className="text-zinc-600 dark:text-zinc-400">
          {countFormat.format(day.promptTokens)} prompt · {countFormat.format(day.completionTokens)}{' '}
          completion tokens
        </p>
      </>
    );
  };

  const describeSpend = (index: number) => {
    const day = summary.days[index];
    if (!day) return '';
    const parts = layers
      .filter((layer) => (layer.nanos[index] ?? 0) > 0)
      .map((layer) => `${layer.label} ${formatNanosUsd(layer.nanos[index] ?? 0)}`);
    return `${formatDay(day.date, true)}: ${formatNanosUsd(day.costNanos)}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}.`;
  };
  const describeRequests = (index: number) => {
    const day = summary.days[index];
    return day ? `${formatDay(day.date, true)}: ${plural(day.requests, 'request')}.` : '';
  };

  const figureClass =
    'flex min-w-0 flex-col gap-2 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800';

  return (
    <div className="flex flex-col gap-3">
      <div className="grid gap-3 lg:grid-cols-2">
        <figure className={figureClass} aria-labelledby="spend-chart-caption">
          <figcaption
            id="spend-chart-caption"
            className="flex flex-wrap items-baseline justify-between gap-x-3 text-sm"
          >
            <span className="font-semibold">Spend per day, by model</span>
            <span className="text-zinc-700 dark:text-zinc-300">
              <span className="font-mono" data-testid="chart-spend-total">
                {formatNanosUsd(totals.costNanos)}
              </span>{' '}
              in total
            </span>
          </figcaption>
          <DailyBarChart
            label="Spend per day, by model"
            dates={dates}
            series={spendSeries}
            formatTick={(value) => usdTick.format(value)}
            renderDay={spendOfDay}
            onSelectDay={onSelectDay && ((index) => onSelectDay(dates[index]!))}
            describeDay={describeSpend}
            dark={dark}
          />
          {layers.length > 0 && (
            <ul aria-label="Models" className="flex flex-wrap gap-x-3 gap-y-1 text-xs">
              {layers.map((layer, index) => (
                <li key={layer.label} className="flex min-w-0 items-center gap-1.5">
                  <Swatch colour={colours[index]!} />
                  <span className="truncate" title={layer.models.join(', ')}>
                    {layer.label}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </figure>
        <figure className={figureClass} aria-labelledby="requests-chart-caption">
          <figcaption
            id="requests-chart-caption"
            className="flex flex-wrap items-baseline justify-between gap-x-3 text-sm"
          >
            <span className="font-semibold">Requests per day</span>
            <span className="text-zinc-700 dark:text-zinc-300">
              <span className="font-mono" data-testid="chart-requests-total">
                {countFormat.format(totals.requests)}
              </span>{' '}
              in total
            </span>
          </figcaption>
          <DailyBarChart
            label="Requests per day"
            dates={dates}
            series={requestSeries}
            formatTick={(value) => countFormat.format(value)}
            wholeNumbers
            renderDay={requestsOfDay}
            onSelectDay={onSelectDay && ((index) => onSelectDay(dates[index]!))}
            describeDay={describeRequests}
            dark={dark}
          />
        </figure>
      </div>
      <details className="text-sm">
        <summary className="cursor-pointer text-zinc-700 select-none dark:text-zinc-300">
          Figures per day as a table
        </summary>
        <div className="mt-2">
          <DataTable
            label="Figures per day"
            className="w-full text-sm"
            columns={[
              { key: 'date', header: 'Day (UTC)' },
              { key: 'requests', header: 'Requests', align: 'right' },
              { key: 'prompt', header: 'Prompt tokens', align: 'right' },
              { key: 'completion', header: 'Completion tokens', align: 'right' },
              { key: 'spend', header: 'Spend', align: 'right' },
            ]}
          >
            {summary.days.map((day) => (
              <tr key={day.date} className="border-t border-zinc-200 dark:border-zinc-800">
                <td className="px-2 py-1 whitespace-nowrap">{formatDay(day.date, true)}</td>
                <td className="px-2 py-1 text-right">{countFormat.format(day.requests)}</td>
                <td className="px-2 py-1 text-right">{countFormat.format(day.promptTokens)}</td>
                <td className="px-2 py-1 text-right">{countFormat.format(day.completionTokens)}</td>
                <td className="px-2 py-1 text-right font-mono">{formatNanosUsd(day.costNanos)}</td>
              </tr>
            ))}
          </DataTable>
        </div>
      </details>
    </div>
  );
}
