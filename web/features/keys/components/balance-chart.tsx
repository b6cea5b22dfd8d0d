import { formatTime, formatUsd } from '../../../lib/format';

export interface BalanceSample {
  /** When the sample was taken, in milliseconds. */
  time: number;
  remaining: number;
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

/** Remaining balance over the samples taken while the page was open. */
export function BalanceChart({ samples }: { samples: BalanceSample[] }) {
  const points = chartPoints(samples);
  const first = samples[0];
  const last = samples[samples.length - 1];
  const summary =
    first && last
      ? `${samples.length} sample${samples.length === 1 ? '' : 's'} from ${formatTime(first.time)} to ${formatTime(last.time)}: ${formatUsd(first.remaining)} to ${formatUsd(last.remaining)}`
      : 'No samples yet';
  return (
    <figure className="flex flex-col gap-1 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800">
      <figcaption className="flex items-baseline justify-between gap-2 text-sm">
        <span className="font-semibold">Balance during this visit</span>
        <span className="text-xs text-zinc-600 dark:text-zinc-400">
          {samples.length} sample{samples.length === 1 ? '' : 's'}
        </span>
      </figcaption>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={summary}
        className="h-24 w-full"
        preserveAspectRatio="none"
      >
        <line
          x1={0}
          x2={width}
          y1={height - 1}
          y2={height - 1}
          className="stroke-zinc-200 dark:stroke-zinc-800"
        />
        {points.length > 1 && (
          <polyline
            fill="none"
            strokeWidth={2}
            vectorEffect="non-scaling-stroke"
            className="stroke-sky-600 dark:stroke-sky-400"
            points={points.map((point) => `${point.x},${point.y}`).join(' ')}
          />
        )}
        {points.map((point, index) => (
          <circle
            key={index}
            cx={point.x}
            cy={point.y}
            r={2.5}
            className="fill-sky-600 dark:fill-sky-400"
          />
        ))}
      </svg>
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        {samples.length < 2
          ? 'A sample is taken on every refresh (and every 30 s while this page is open).'
          : summary}
      </p>
    </figure>
  );
}
