/**
 * A bar chart of one value per UTC day, drawn by uPlot on a canvas (small, no dependencies, and
 * loaded only with the Activity page's charts). Hovering a day, or moving to it with the arrow
 * keys, shows that day's exact figures, written by the caller from exact data: the canvas's
 * floats only place the bars.
 */
import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatDay } from '../../../lib/utc-days';

export interface BarSeries {
  label: string;
  colour: string;
  /** One value per day, already stacked when the chart is (top layer first). */
  values: number[];
}

export interface DailyBarChartProps {
  /** The chart's accessible name, e.g. "Spend per day". */
  label: string;
  /** `YYYY-MM-DD` per bar, oldest first. */
  dates: string[];
  /** Drawn in order, each from zero; later series cover earlier ones. */
  series: BarSeries[];
  formatTick(value: number): string;
  /** Only whole numbers on the value axis (counts). */
  wholeNumbers?: boolean;
  /** The exact figures of one day, shown on hover. */
  renderDay(index: number): ReactNode;
  /** The same figures as one sentence, read out when the arrow keys move to a day. */
  describeDay(index: number): string;
  dark: boolean;
  height?: number;
  /** A click on a day, or Enter on the day the keys moved to, chooses it. */
  onSelectDay?(index: number): void;
}

const axisFont = '11px ui-sans-serif, system-ui, sans-serif';

export function DailyBarChart({
  label,
  dates,
  series,
  formatTick,
  wholeNumbers = false,
  renderDay,
  describeDay,
  dark,
  height = 200,
  onSelectDay,
}: DailyBarChartProps) {
  const containerRef = useRef<HTMLDivElement>(null);
  const plotRef = useRef<uPlot | null>(null);
  const [hover, setHover] = useState<{ index: number; left: number } | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const [width, setWidth] = useState(0);
  const latest = useRef({ formatTick, dates });
  useEffect(() => {
    latest.current = { formatTick, dates };
  });

  useEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    const text = dark ? '#d4d4d8' : '#52525b';
    const grid = dark ? '#3f3f46' : '#e4e4e7';
    const indices = dates.map((_, index) => index);
    const options: uPlot.Options = {
      width: Math.max(200, container.clientWidth),
      height,
      legend: { show: false },
      // Room on the right for the last day's label, centred under its bar.
      padding: [8, 20, 0, 0],
      cursor: {
        x: false,
        y: false,
        points: { show: false },
        drag: { x: false, y: false, setScale: false },
      },
      scales: {
        x: { time: false, range: () => [-0.5, Math.max(0, dates.length - 1) + 0.5] },
        y: { range: (_plot, _min, max) => [0, max > 0 ? max * 1.12 : 1] },
      },
      axes: [
        {
          stroke: text,
          font: axisFont,
          // One line of day labels: uPlot's default leaves room for two.
          size: 30,
          grid: { show: false },
          ticks: { show: false },
          // As many day labels as fit, about one per 64 pixels, ending on today.
          splits: (plot) => {
            const fit = Math.max(1, Math.floor(plot.bbox.width / devicePixelRatio / 64));
            const step = Math.max(1, Math.ceil(dates.length / fit));
            return indices.filter((index) => (dates.length - 1 - index) % step === 0);
          },
          values: (_plot, splits) =>
            splits.map((index) => formatDay(latest.current.dates[index] ?? '')),
        },
        {
          stroke: text,
          font: axisFont,
          size: 64,
          grid: { stroke: grid, width: 1 },
          ticks: { show: false },
          ...(wholeNumbers
            ? { incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 1e5, 1e6] }
            : {}),
          values: (_plot, splits) => splits.map((value) => latest.current.formatTick(value)),
        },
      ],
      series: [
        {},
        ...series.map((entry) => ({
          label: entry.label,
          stroke: entry.colour,
          fill: entry.colour,
          width: 0,
          points: { show: false },
          paths: uPlot.paths.bars!({ size: [0.72, 48], align: 0 }),
        })),
      ],
      hooks: {
        setCursor: [
          (plot) => {
            const index = plot.cursor.idx;
            setHover(
              index === null || index === undefined
                ? null
                : { index, left: plot.valToPos(index, 'x') + plot.bbox.left / devicePixelRatio },
            );
          },
        ],
      },
    };
    const plot = new uPlot(
      options,
      [indices, ...series.map((entry) => entry.values)] as uPlot.AlignedData,
      container,
    );
    plotRef.current = plot;
    const resize = new ResizeObserver(() => {
      plot.setSize({ width: Math.max(200, container.clientWidth), height });
      setWidth(container.clientWidth);
    });
    resize.observe(container);
    return () => {
      resize.disconnect();
      plot.destroy();
      plotRef.current = null;
    };
  }, [dates, series, dark, height, wholeNumbers]);

  function moveWithKeys(event: KeyboardEvent<HTMLDivElement>) {
    const plot = plotRef.current;
    if (!plot || dates.length === 0) return;
    const current = hover?.index ?? dates.length;
    let next: number | null = null;
    if (event.key === 'ArrowLeft') next = Math.max(0, current - 1);
    else if (event.key === 'ArrowRight') next = Math.min(dates.length - 1, current + 1);
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = dates.length - 1;
    else if (event.key === 'Escape') {
      setHover(null);
      return;
    } else if (event.key === 'Enter' && hover && onSelectDay) {
      event.preventDefault();
      onSelectDay(hover.index);
      return;
    }
    if (next === null) return;
    event.preventDefault();
    plot.setCursor({
      left: plot.valToPos(next, 'x'),
      top: plot.bbox.height / devicePixelRatio / 2,
    });
    setAnnouncement(describeDay(next));
  }

  const tooltipLeft = hover ? Math.min(Math.max(hover.left + 12, 0), Math.max(0, width - 232)) : 0;

  return (
    <div className="relative">
      <div
        ref={containerRef}
        role="group"
        tabIndex={0}
        aria-label={`${label}. Left and right arrow keys read each day's figures${onSelectDay ? '; Enter or a click shows its requests' : ''}.`}
        onKeyDown={moveWithKeys}
        onClick={() => hover && onSelectDay?.(hover.index)}
        onBlur={() => setHover(null)}
        className={onSelectDay ? 'w-full cursor-pointer rounded' : 'w-full rounded'}
      />
      {hover && (
        <div
          data-testid="chart-tooltip"
          className="pointer-events-none absolute top-1 z-10 w-56 rounded-md border border-zinc-200 bg-white/95 p-2 text-xs shadow-lg dark:border-zinc-700 dark:bg-zinc-900/95"
          style={{ left: tooltipLeft }}
        >
          {renderDay(hover.index)}
        </div>
      )}
      <p className="sr-only" aria-live="polite">
        {announcement}
      </p>
    </div>
  );
}
