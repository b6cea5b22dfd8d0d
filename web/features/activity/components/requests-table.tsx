/**
 * The profile's requests as a virtualised table: only the rows in view are in the DOM, and the
 * next page is asked for as the last rows come into view (a button does the same for keyboard
 * users). Each row has the request's cf-ray, with a copy button; the cf-ray opens the request's
 * detail panel.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import type { ActivityRequest } from '../../../../contract/workbench-api';
import { Badge } from '../../../components/badge';
import { Button } from '../../../components/button';
import { classNames } from '../../../components/class-names';
import { CopyButton } from '../../../components/copy-button';
import { TranslationSummary } from '../../../components/translation-report';
import { formatDuration } from '../../../lib/format';
import { formatNanosUsd, usdToNanos } from '../../../../contract/usd-nanos';
import { GridHeader } from '../../../components/grid-header';

/** The public form a request came in, in the words the gateway's docs use. */
export function formName(form: string): string {
  switch (form) {
    case 'chat_completions':
      return 'Chat completions';
    case 'responses':
      return 'Responses';
    case 'embeddings':
      return 'Embeddings';
    case 'messages':
      return 'Messages';
    case 'gemini':
      return 'Gemini';
    default:
      return form;
  }
}

/** The form in a few letters, for the table's narrow Form column. */
export function shortFormName(form: string): string {
  return form === 'chat_completions' ? 'Chat' : formName(form);
}

/** A Unix time (seconds) as `YYYY-MM-DD HH:MM:SS` in UTC, the days the ranges count in. */
export function formatUtcTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

const tokenFormat = new Intl.NumberFormat('en-US');

export function OutcomeBadge({ outcome }: { outcome: string }) {
  if (outcome === 'completed') return <Badge tone="green">Completed</Badge>;
  if (outcome === 'ended_early') return <Badge tone="amber">Ended early</Badge>;
  return <Badge>{outcome}</Badge>;
}

/**
 * Whose a marked row is: an account's child, or (for a child's profile) the key the profile used
 * before a rotation replaced it, whose requests stay the profile's history.
 */
export type MarkedKeys = 'children' | 'replaced';

/** What a row made with another key says about that key, and its tooltip. */
export function keyMark(
  key: NonNullable<ActivityRequest['child']>,
  markedKeys: MarkedKeys,
): { label: string; title: string } {
  return markedKeys === 'children'
    ? {
        label: `key: ${key.name || key.masked_key}`,
        title: `Made with the child key ${key.masked_key}`,
      }
    : {
        label: `earlier key: ${key.masked_key}`,
        title: `Made with ${key.masked_key}, the key this profile used before it was rotated`,
      };
}

/** Rows ahead of the end at which the next page is asked for. */
const prefetchRows = 15;

export interface RequestsTableProps {
  rows: ActivityRequest[];
  /** An account profile also sees its children's requests: say so in the Model header. */
  showKey: boolean;
  markedKeys: MarkedKeys;
  hasMore: boolean;
  loadingMore: boolean;
  onLoadMore(): void;
  /** Opens the request's detail panel. */
  onOpenRequest(id: string): void;
}

export function RequestsTable({
  rows,
  showKey,
  markedKeys,
  hasMore,
  loadingMore,
  onLoadMore,
  onOpenRequest,
}: RequestsTableProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  // eslint-disable-next-line react-hooks/incompatible-library -- no React Compiler here; this is the documented use.
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 44,
    overscan: 10,
    getItemKey: (index) => rows[index]?.id ?? index,
    initialRect: { width: 1024, height: 560 },
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items[items.length - 1]?.index ?? -1;

  useEffect(() => {
    if (hasMore && !loadingMore && lastIndex >= rows.length - prefetchRows) onLoadMore();
  }, [hasMore, loadingMore, lastIndex, rows.length, onLoadMore]);

  const columns =
    'grid items-center gap-x-3 grid-cols-[minmax(0,1fr)_auto] xl:grid-cols-[9rem_minmax(8rem,1.5fr)_minmax(5rem,1fr)_6rem_5.5rem_6.5rem_4.5rem_6.5rem_12.5rem]';
  const headers: Array<{ label: string; className?: string }> = [
    { label: 'Time (UTC)' },
    { label: showKey ? 'Model · key' : 'Model' },
    { label: 'Provider' },
    { label: 'Form' },
    { label: 'Tokens', className: 'text-right' },
    { label: 'Cost', className: 'text-right' },
    { label: 'Latency', className: 'text-right' },
    { label: 'Outcome' },
    { label: 'cf-ray' },
  ];

  return (
    <div className="flex flex-col gap-2">
      <div
        role="table"
        aria-label="Requests"
        aria-rowcount={hasMore ? -1 : rows.length + 1}
        className="flex min-h-0 flex-col overflow-hidden rounded-md border border-zinc-200 dark:border-zinc-800"
      >
        <GridHeader columns={columns}>
          {headers.map((header) => (
            <div
              key={header.label}
              role="columnheader"
              className={classNames('hidden xl:block', header.className)}
            >
              {header.label}
            </div>
          ))}
          {/* The narrow layout folds the columns into two cells. */}
          <div role="columnheader" className="xl:hidden">
            Request
          </div>
          <div role="columnheader" className="text-right xl:hidden">
            Cost
          </div>
        </GridHeader>
        <div
          ref={scrollRef}
          role="rowgroup"
          className="max-h-[max(20rem,60dvh)] overflow-y-auto overscroll-contain"
        >
          <div
            role="presentation"
            className="relative w-full"
            style={{ height: virtualizer.getTotalSize() }}
          >
            {items.map((item) => {
              const row = rows[item.index];
              if (!row) return null;
              const cost = formatNanosUsd(usdToNanos(row.cost_usd));
              const time = formatUtcTime(row.created_at);
              const form = `${formName(row.form)}${row.streamed ? ', streamed' : ''}`;
              const tokens = (
                <>
                  {tokenFormat.format(row.prompt_tokens)}
                  <span aria-hidden="true"> → </span>
                  <span className="sr-only"> in, </span>
                  {tokenFormat.format(row.completion_tokens)}
                  <span className="sr-only"> out</span>
                  {row.usage_estimated && (
                    <abbr
                      title="The provider reported no usage: the gateway counted the tokens"
                      className="ml-1 no-underline"
                    >
                      est.
                    </abbr>
                  )}
                </>
              );
              // Only another key's requests say whose they are; the rest are the profile key's own.
              const mark = row.child && keyMark(row.child, markedKeys);
              const child = mark && (
                <div
                  className="truncate text-xs text-zinc-600 dark:text-zinc-400"
                  title={mark.title}
                >
                  {mark.label}
                </div>
              );
              const cfRay = (
                <>
                  {/* The cf-ray opens the request's detail panel; its name keeps the visible id. */}
                  <button
                    type="button"
                    aria-haspopup="dialog"
                    aria-label={`Details of request ${row.id}`}
                    data-request-details={row.id}
                    onClick={() => onOpenRequest(row.id)}
                    className="truncate rounded font-mono text-xs text-sky-700 underline decoration-dotted underline-offset-2 hover:decoration-solid dark:text-sky-400"
                  >
                    {row.id}
                  </button>
                  <CopyButton
                    text={row.id}
                    label={`Copy cf-ray ${row.id}`}
                    variant="ghost"
                    className="h-6 px-1.5"
                  />
                </>
              );
              return (
                <div
                  key={item.key}
                  role="row"
                  aria-rowindex={item.index + 2}
                  data-index={item.index}
                  data-cf-ray={row.id}
                  ref={virtualizer.measureElement}
                  className={classNames(
                    columns,
                    'absolute top-0 left-0 w-full border-b border-zinc-100 px-3 py-1.5 text-sm dark:border-zinc-800/70',
                  )}
                  style={{ transform: `translateY(${item.start}px)` }}
                >
                  <div
                    role="cell"
                    className="hidden text-xs whitespace-nowrap tabular-nums xl:block"
                  >
                    {time}
                  </div>
                  <div role="cell" className="hidden min-w-0 xl:block">
                    <div className="truncate font-mono text-xs" title={row.model}>
                      {row.model}
                    </div>
                    {child}
                  </div>
                  <div role="cell" className="hidden min-w-0 xl:block">
                    <div className="truncate" title={row.provider}>
                      {row.provider}
                    </div>
                    {row.attempts.length > 1 && (
                      <div className="text-xs text-zinc-600 dark:text-zinc-400">
                        {row.attempts.length} attempts
                      </div>
                    )}
                    <TranslationSummary report={row.translation} />
                  </div>
                  <div role="cell" className="hidden truncate xl:block" title={form}>
                    {shortFormName(row.form)}
                    {row.streamed && <span className="sr-only">, streamed</span>}
                  </div>
                  <div role="cell" className="hidden text-right tabular-nums xl:block">
                    {tokens}
                  </div>
                  <div
                    role="cell"
                    className="hidden text-right font-mono xl:block"
                    data-testid="request-cost"
                  >
                    {cost}
                    {row.charge_capped && (
                      <abbr
                        title="The usage cost more than was reserved: the charge stopped at the reservation"
                        className="ml-1 no-underline"
                      >
                        capped
                      </abbr>
                    )}
                  </div>
                  <div role="cell" className="hidden text-right tabular-nums xl:block">
                    {formatDuration(row.latency_ms)}
                  </div>
                  <div role="cell" className="hidden xl:block">
                    <OutcomeBadge outcome={row.outcome} />
                  </div>
                  <div role="cell" className="hidden min-w-0 items-center gap-1 xl:flex">
                    {cfRay}
                  </div>

                  {/* Narrow screens: the same figures in two cells, the cost on the right. */}
                  <div role="cell" className="min-w-0 xl:hidden">
                    <div className="flex min-w-0 items-center gap-2">
                      <span className="truncate font-mono text-xs" title={row.model}>
                        {row.model}
                      </span>
                      <OutcomeBadge outcome={row.outcome} />
                    </div>
                    <div className="text-xs text-zinc-600 dark:text-zinc-400">
                      {time} · {row.provider} · {form} · {tokens} tokens ·{' '}
                      {formatDuration(row.latency_ms)}
                    </div>
                    {child}
                    <TranslationSummary report={row.translation} />
                    <div className="flex min-w-0 items-center gap-1">{cfRay}</div>
                  </div>
                  <div role="cell" className="self-start text-right font-mono xl:hidden">
                    {cost}
                  </div>
                </div>
              );
            })}
          </div>
        </div>
      </div>
      <div className="flex items-center justify-between gap-2 text-xs text-zinc-600 dark:text-zinc-400">
        <span aria-live="polite">
          {rows.length} request{rows.length === 1 ? '' : 's'} shown
          {hasMore ? '; more load as you scroll' : ''}
          {loadingMore ? ' · loading more…' : ''}
        </span>
        {hasMore && (
          <Button size="small" onClick={onLoadMore} disabled={loadingMore}>
            Load more requests
          </Button>
        )}
      </div>
    </div>
  );
}
