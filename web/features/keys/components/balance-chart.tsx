import { useState, type PointerEvent } from 'react';
import { classNames } from '../../../components/class-names';
import { chartColour } from '../../../lib/chart-palette';
import { formatTime, formatUsd, formatUsdCents } from '../../../lib/format';
import { usePrefersDark } from '../../../lib/use-prefers-dark';

export interface BalanceSample {
  /** When the sample was taken, in milliseconds. */
  time: number;
  remaining: number;
  /** When it says more than the time of day (a past day's end); the time otherwise. */
  label?: string;
}

const whenOf = (sample: BalanceSample) => sample.label ?? formatTime(sample.time);

/** A balance in a headline: cents, the exact amount on hover (title) and in the details. */
function Usd({ amount }: { amount: number }) {
  return <span title={formatUsd(amount)}>{formatUsdCents(amount)}</span>;
}

const width = 320;
const height = 96;
const padding = 6;

/** Points of the chart's line, scaled into the SVG's box; exported for tests. */
export function chartPoints(samples: BalanceSample[]): Array<{ x: number; y: number }> {
  if (samples.length === 0) return [];
  const times = samples.map((sample) => sample.time);
  const values = samples.map((sample) => sample.remaining);
  const firstTime = Math.min(...times);
  const timeSpan = Math.max(...times) - firstTime || 1;
  const low = Math.min(...values);
  const high = Math.max(...values);
  const valueSpan = high - low || 1;
  return samples.map((sample) => ({
    x:
      samples.length === 1
        ? width / 2
        : padding + ((sample.time - firstTime) / timeSpan) * (width - 2 * padding),
    // A flat series sits in the middle rather than on an edge.
    y:
      high === low
        ? height / 2
        : padding + (1 - (sample.remaining - low) / valueSpan) * (height - 2 * padding),
  }));
}

/**
 * The line through the points as steps: a balance holds until the next sample shows it changed,
 * so a straight slope between two samples would draw spending that happened at once as gradual.
 */
export function stepLinePoints(points: Array<{ x: number; y: number }>): string {
  return points
    .flatMap((point, index) => {
      const previous = points[index - 1];
      return previous
        ? [`${point.x},${previous.y}`, `${point.x},${point.y}`]
        : [`${point.x},${point.y}`];
    })
    .join(' ');
}

/**
 * Whether a new sample is worth keeping: the balance moved, or half a minute passed since the
 * last one kept (the page polls more often than that, mostly for the key's state).
 */
export function keepsSample(samples: BalanceSample[], sample: BalanceSample): boolean {
  const last = samples[samples.length - 1];
  if (!last) return true;
  if (sample.time <= last.time) return false;
  return sample.remaining !== last.remaining || sample.time - last.time >= 30_000;
}

/** The index of the sample nearest to `x` (in the SVG's units). */
function nearestIndex(points: Array<{ x: number }>, x: number): number {
  let best = 0;
  points.forEach((point, index) => {
    if (Math.abs(point.x - x) < Math.abs((points[best]?.x ?? 0) - x)) best = index;
  });
  return best;
}

/**
 * Remaining balance over the past days' ends (from the daily spend) and the samples taken while
 * the page is open, with its range on the axes and the value under the pointer.
 */
export function BalanceChart({ samples }: { samples: BalanceSample[] }) {
  const [hovered, setHovered] = useState<number | null>(null);
  const colour = chartColour(0, usePrefersDark());
  const points = chartPoints(samples);
  const first = samples[0];
  const last = samples[samples.length - 1];
  const values = samples.map((sample) => sample.remaining);
  const high = values.length ? Math.max(...values) : null;
  const low = values.length ? Math.min(...values) : null;
  const summary =
    first && last
      ? `${samples.length} sample${samples.length === 1 ? '' : 's'} from ${whenOf(first)} to ${whenOf(last)}: ${formatUsdCents(first.remaining)} to ${formatUsdCents(last.remaining)}`
      : 'No samples yet';
  const shown = hovered !== null ? samples[hovered] : undefined;
  const shownPoint = hovered !== null ? points[hovered] : undefined;

  function onPointerMove(event: PointerEvent<SVGSVGElement>) {
    if (points.length === 0) return;
    const box = event.currentTarget.getBoundingClientRect();
    if (box.width === 0) return;
    setHovered(nearestIndex(points, ((event.clientX - box.left) / box.width) * width));
  }

  return (
    <figure className="flex flex-col gap-1 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800">
      <figcaption className="flex items-baseline justify-between gap-2 text-sm">
        <span className="font-semibold">Balance</span>
        <span className="text-xs text-zinc-600 dark:text-zinc-400">
          {samples.length} sample{samples.length === 1 ? '' : 's'}
        </span>
      </figcaption>
      <p
        className="h-4 text-right text-xs text-zinc-700 tabular-nums dark:text-zinc-300"
        aria-live="polite"
      >
        {shown ? (
          <>
            {whenOf(shown)} · <Usd amount={shown.remaining} />
          </>
        ) : (
          ''
        )}
      </p>
      {samples.length < 2 ? (
        // One sample is a single dot with nothing to compare it to: say what there is instead.
        <div className="flex h-24 flex-col items-center justify-center gap-1 rounded-md bg-zinc-50 px-3 text-center text-xs text-zinc-600 dark:bg-zinc-900 dark:text-zinc-400">
          {first ? (
            <span className="text-sm text-zinc-800 tabular-nums dark:text-zinc-200">
              <Usd amount={first.remaining} /> at {whenOf(first)}
            </span>
          ) : null}
          <span>The line starts with the second sample.</span>
        </div>
      ) : (
        <div className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-2">
          {/* The value axis: the highest and lowest balance seen. */}
          <div
            aria-hidden="true"
            className={classNames(
              'flex h-24 flex-col text-right text-[0.6875rem] text-zinc-600 tabular-nums dark:text-zinc-400',
              // A flat series is drawn across the middle: its one value sits there too.
              low === high ? 'justify-center' : 'justify-between',
            )}
          >
            <span>{high === null ? '' : formatUsdCents(high)}</span>
            {low !== null && low !== high && <span>{formatUsdCents(low)}</span>}
          </div>
          <svg
            viewBox={`0 0 ${width} ${height}`}
            role="img"
            aria-label={summary}
            className="h-24 w-full touch-none"
            preserveAspectRatio="none"
            onPointerMove={onPointerMove}
            onPointerLeave={() => setHovered(null)}
          >
            <line
              x1={0}
              x2={width}
              y1={height - 1}
              y2={height - 1}
              className="stroke-zinc-300 dark:stroke-zinc-700"
            />
            <line
              x1={0}
              x2={0}
              y1={0}
              y2={height}
              className="stroke-zinc-300 dark:stroke-zinc-700"
            />
            {shownPoint && (
              <line
                x1={shownPoint.x}
                x2={shownPoint.x}
                y1={0}
                y2={height}
                vectorEffect="non-scaling-stroke"
                className="stroke-zinc-400 dark:stroke-zinc-500"
                strokeDasharray="3 3"
              />
            )}
            <polyline
              fill="none"
              strokeWidth={2}
              vectorEffect="non-scaling-stroke"
              stroke={colour}
              points={stepLinePoints(points)}
            />
            {points.map((point, index) => (
              <circle
                key={index}
                cx={point.x}
                cy={point.y}
                r={index === hovered ? 4 : 2.5}
                fill={colour}
              >
                <title>{`${whenOf(samples[index]!)}: ${formatUsd(samples[index]!.remaining)}`}</title>
              </circle>
            ))}
          </svg>
          {/* The time axis: when the first and the last sample were taken. */}
          <div
            aria-hidden="true"
            className="col-start-2 flex justify-between text-[0.6875rem] text-zinc-600 tabular-nums dark:text-zinc-400"
          >
            <span>{first ? whenOf(first) : ''}</span>
            <span>{last && last !== first ? whenOf(last) : ''}</span>
          </div>
        </div>
      )}
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        {samples.length < 2
          ? 'A sample is kept when the balance changes, and every 30 s while this page is open. Point at the line to read a value.'
          : summary}
      </p>
      {samples.length > 0 && (
        <details className="text-xs">
          <summary className="cursor-pointer text-zinc-700 dark:text-zinc-300">
            Exact amounts
          </summary>
          <ul className="mt-1 flex max-h-48 flex-col gap-0.5 overflow-auto tabular-nums">
            {samples.map((sample, index) => (
              <li key={index} className="flex justify-between gap-2">
                <span>{whenOf(sample)}</span>
                <span className="font-mono">{formatUsd(sample.remaining)}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </figure>
  );
}
