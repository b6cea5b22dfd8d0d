/**
 * One request of the Activity table in full, as a side panel named after its cf-ray: how it came
 * in, the id it named (an alias, a preset) and which model answered, every provider attempt and
 * why a route was skipped, the tokens (and the prompt cache's part),
 * the cost and its settlement, whether the usage was estimated, what translation dropped or
 * changed, and the trace id to copy. Everything comes from the row's generation record.
 */
import { Dialog } from 'radix-ui';
import type { ReactNode } from 'react';
import type { ActivityRequest } from '../../../../contract/workbench-api';
import { Badge } from '../../../components/badge';
import { CopyButton } from '../../../components/copy-button';
import { TranslationDetails } from '../../../components/translation-report';
import { formatDuration } from '../../../lib/format';
import { formatNanosUsd, usdToNanos } from '../../../../contract/usd-nanos';
import { formName, formatUtcTime, keyMark, OutcomeBadge, type MarkedKeys } from './requests-table';
import { DialogCloseButton } from '../../../components/dialog-close';

const tokenFormat = new Intl.NumberFormat('en-US');
const tokens = (count: number) => tokenFormat.format(count);

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="contents">
      <dt className="text-zinc-600 dark:text-zinc-400">{label}</dt>
      <dd className="min-w-0 break-words">{children}</dd>
    </div>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = `request-detail-${title.toLowerCase().replaceAll(' ', '-')}`;
  return (
    <section aria-labelledby={id} className="flex flex-col gap-1.5">
      <h3 id={id} className="text-sm font-semibold">
        {title}
      </h3>
      {children}
    </section>
  );
}

const fieldsClassName = 'grid grid-cols-[max-content_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm';

/** Why a route was not tried, in the words of the preference or state that skipped it. */
const SKIPPED: Record<string, string> = {
  cooling_down: 'skipped: breaker open',
  ignored: 'skipped: in provider.ignore',
  not_in_only: 'skipped: not in provider.only',
  over_max_price: 'skipped: over provider.max_price',
  no_fallbacks: 'skipped: allow_fallbacks false',
};

/** An attempt's status: an HTTP status, how it failed before one came, or why it was skipped. */
function attemptStatus(status: number | string): string {
  if (typeof status === 'number') return `HTTP ${status}`;
  return SKIPPED[status] ?? status.replaceAll('_', ' ');
}

export function RequestDetailDialog({
  request,
  markedKeys,
  onClose,
  onCloseAutoFocus,
}: {
  /** The request shown; null keeps the panel closed. */
  request: ActivityRequest | null;
  markedKeys: MarkedKeys;
  onClose(): void;
  /** The panel opens from a row that may scroll out of the DOM: the table puts the focus back. */
  onCloseAutoFocus?(event: Event): void;
}) {
  return (
    <Dialog.Root open={request !== null} onOpenChange={(next) => !next && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-zinc-950/40" />
        <Dialog.Content
          onCloseAutoFocus={onCloseAutoFocus}
          className="fixed inset-y-0 right-0 z-50 flex w-full max-w-xl flex-col overflow-hidden border-l border-zinc-200 bg-white text-zinc-900 shadow-xl outline-none dark:border-zinc-800 dark:bg-zinc-950 dark:text-zinc-100"
        >
          {request && <RequestDetail request={request} markedKeys={markedKeys} />}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function RequestDetail({
  request,
  markedKeys,
}: {
  request: ActivityRequest;
  markedKeys: MarkedKeys;
}) {
  const mark = request.child && keyMark(request.child, markedKeys);
  const cacheWrite5m = request.cache_write_tokens - request.cache_write_1h_tokens;
  // Attempts name their model only when several could answer (fallback models, an alias).
  const byModel = request.attempts.some((attempt) => attempt.model !== undefined);
  return (
    <>
      <div className="flex items-start justify-between gap-3 border-b border-zinc-200 p-4 dark:border-zinc-800">
        <div className="min-w-0">
          <Dialog.Title className="text-lg font-semibold break-all">
            Request {request.id}
          </Dialog.Title>
          <Dialog.Description className="mt-0.5 text-sm text-zinc-700 dark:text-zinc-300">
            <span className="font-mono">{request.model}</span> · {formatUtcTime(request.created_at)}{' '}
            UTC
          </Dialog.Description>
        </div>
        <DialogCloseButton />
      </div>
      <div className="flex flex-1 flex-col gap-4 overflow-y-auto p-4">
        <Section title="Trace id">
          <div className="flex min-w-0 items-center gap-2">
            <span className="font-mono text-sm break-all select-all">{request.id}</span>
            {/* The visible word starts the accessible name (WCAG 2.5.3). */}
            <CopyButton text={request.id} label={`Copy cf-ray ${request.id}`} />
          </div>
        </Section>

        <Section title="Request">
          <dl className={fieldsClassName}>
            <Field label="Form">
              {formName(request.form)}
              {request.streamed ? ', streamed' : ''}
            </Field>
            <Field label="Model">
              <span className="font-mono">{request.model}</span>
              {request.upstream_model && request.upstream_model !== request.model && (
                <span className="text-zinc-600 dark:text-zinc-400">
                  {' '}
                  (asked of the provider as{' '}
                  <span className="font-mono">{request.upstream_model}</span>)
                </span>
              )}
            </Field>
            {request.requested_model && (
              <Field label="Requested">
                <span className="font-mono">{request.requested_model}</span>
                <span className="text-zinc-600 dark:text-zinc-400">
                  {' '}
                  (answered by <span className="font-mono">{request.model}</span>)
                </span>
              </Field>
            )}
            {request.batch_id && (
              <Field label="Batch">
                <span className="font-mono">{request.batch_id}</span>
              </Field>
            )}
            <Field label="Provider">{request.provider}</Field>
            <Field label="Outcome">
              <OutcomeBadge outcome={request.outcome} />
              {request.finish_reason && (
                <span className="ml-2 text-zinc-600 dark:text-zinc-400">
                  finish reason <span className="font-mono">{request.finish_reason}</span>
                </span>
              )}
            </Field>
            <Field label="Latency">{formatDuration(request.latency_ms)}</Field>
            {mark && <Field label="Key">{mark.title}</Field>}
          </dl>
        </Section>

        <Section title="Attempts">
          {request.attempts.length === 0 ? (
            <p className="text-sm text-zinc-600 dark:text-zinc-400">
              The gateway did not list the attempts of this request.
            </p>
          ) : (
            <table className="w-full text-left text-sm">
              <caption className="sr-only">
                Provider attempts, in order; the last one answered
              </caption>
              <thead className="text-xs text-zinc-600 dark:text-zinc-400">
                <tr>
                  <th scope="col" className="py-1 pr-2 font-medium">
                    #
                  </th>
                  {byModel && (
                    <th scope="col" className="py-1 pr-2 font-medium">
                      Model
                    </th>
                  )}
                  <th scope="col" className="py-1 pr-2 font-medium">
                    Provider
                  </th>
                  <th scope="col" className="py-1 pr-2 font-medium">
                    Status
                  </th>
                  <th scope="col" className="py-1 text-right font-medium">
                    Latency
                  </th>
                </tr>
              </thead>
              <tbody>
                {request.attempts.map((attempt, index) => (
                  <tr key={index} className="border-t border-zinc-100 dark:border-zinc-800/70">
                    <td className="py-1 pr-2 tabular-nums">{index + 1}</td>
                    {byModel && <td className="py-1 pr-2 font-mono text-xs">{attempt.model}</td>}
                    <td className="py-1 pr-2">{attempt.provider}</td>
                    <td className="py-1 pr-2 font-mono text-xs">{attemptStatus(attempt.status)}</td>
                    <td className="py-1 text-right tabular-nums">
                      {formatDuration(attempt.latency_ms)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Section>

        <Section title="Tokens">
          <dl className={fieldsClassName}>
            <Field label="Input">{tokens(request.prompt_tokens)}</Field>
            <Field label="Cache read">{tokens(request.cache_read_tokens)}</Field>
            <Field label="Cache write">
              {tokens(request.cache_write_tokens)}
              {request.cache_write_1h_tokens > 0 && (
                <span className="text-zinc-600 dark:text-zinc-400">
                  {' '}
                  ({tokens(cacheWrite5m)} for 5 minutes, {tokens(request.cache_write_1h_tokens)} for
                  an hour)
                </span>
              )}
            </Field>
            <Field label="Output">{tokens(request.completion_tokens)}</Field>
            <Field label="Reasoning">{tokens(request.reasoning_tokens)}</Field>
            <Field label="Usage">
              {request.usage_estimated ? (
                <>
                  <Badge tone="amber">Estimated</Badge>{' '}
                  <span className="text-zinc-600 dark:text-zinc-400">
                    the provider reported no usage: the gateway counted the tokens
                  </span>
                </>
              ) : (
                'reported by the provider'
              )}
            </Field>
          </dl>
        </Section>

        <Section title="Charge">
          <dl className={fieldsClassName}>
            <Field label="Cost">
              <span className="font-mono" data-testid="request-detail-cost">
                {formatNanosUsd(usdToNanos(request.cost_usd))}
              </span>
              {request.charge_capped && (
                <span className="text-zinc-600 dark:text-zinc-400">
                  {' '}
                  capped: the usage cost more than was reserved
                </span>
              )}
            </Field>
            <Field label="Settlement">
              {request.settlement === 'settled' ? (
                <>
                  <Badge tone="green">Settled</Badge>
                  {request.settled_at !== null && (
                    <span className="ml-2 text-zinc-600 dark:text-zinc-400">
                      {formatUtcTime(request.settled_at)} UTC
                    </span>
                  )}
                </>
              ) : request.settlement === 'pending' ? (
                <>
                  <Badge tone="amber">Pending</Badge>
                  <span className="ml-2 text-zinc-600 dark:text-zinc-400">
                    recorded, not yet taken from the balance
                  </span>
                </>
              ) : (
                <Badge>{request.settlement}</Badge>
              )}
            </Field>
          </dl>
        </Section>

        <Section title="Translation">
          {request.translation &&
          (request.translation.dropped.length > 0 || request.translation.adjusted.length > 0) ? (
            <TranslationDetails report={request.translation} />
          ) : (
            <p className="text-sm text-zinc-600 dark:text-zinc-400">
              Nothing was dropped or changed to reach the provider.
            </p>
          )}
        </Section>
      </div>
    </>
  );
}
