import type { ReactNode } from 'react';
import type { BalanceView } from '../../../../contract/workbench-api';
import { Badge } from '../../../components/badge';
import { classNames } from '../../../components/class-names';
import { formatDateTime, formatDuration, formatUsd } from '../../../lib/format';
import { useNow } from '../../../lib/use-now';
import { identityLabels, keyStateLabels, keyStateMeanings, remainingShare } from '../key-state';
import { KeyStateBadge } from './key-state-badge';

function Figure({ label, value, hint }: { label: string; value: ReactNode; hint?: string }) {
  return (
    <div className="flex flex-col gap-0.5 rounded-md bg-zinc-50 px-3 py-2 dark:bg-zinc-900">
      <dt className="text-xs text-zinc-600 dark:text-zinc-400">{label}</dt>
      <dd className="text-sm font-medium tabular-nums">{value}</dd>
      {hint && <dd className="text-xs text-zinc-600 dark:text-zinc-400">{hint}</dd>}
    </div>
  );
}

/** The expiry as a date and a live countdown. */
export function ExpiryText({ expiresAt, expired }: { expiresAt: number | null; expired: boolean }) {
  const now = useNow(expiresAt === null ? null : 1000);
  if (expiresAt === null) return <>Never</>;
  const left = expiresAt * 1000 - now;
  return (
    <>
      {formatDateTime(expiresAt, 'seconds')}
      <span
        className={classNames(
          'block text-xs',
          expired || left <= 0
            ? 'text-amber-800 dark:text-amber-300'
            : 'text-zinc-600 dark:text-zinc-400',
        )}
      >
        {expired || left <= 0
          ? `expired ${formatDuration(-left)} ago`
          : `in ${formatDuration(left)}`}
      </span>
    </>
  );
}

/** One profile's balance: state, remaining against the limit, every figure, and what to do. */
export function BalancePanel({
  view,
  maskedKey,
}: {
  view: BalanceView;
  maskedKey: string | undefined;
}) {
  const { balance, state } = view;
  const share = remainingShare(balance.remaining_usd, balance.limit_usd);
  const sharedChild = balance.identity === 'shared_child';
  const childKey = sharedChild || balance.identity === 'allocated_child';
  return (
    <section
      aria-labelledby="balance-heading"
      className="flex flex-col gap-4 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800"
    >
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 id="balance-heading" className="text-base font-semibold">
            {view.profile}
          </h2>
          <p className="mt-0.5 flex flex-wrap items-center gap-2 text-sm text-zinc-600 dark:text-zinc-400">
            <span>{identityLabels[balance.identity] ?? balance.identity}</span>
            <span aria-hidden="true">·</span>
            <span
              className="font-mono"
              title="Masked: the full key never leaves the workbench server"
            >
              {balance.key || maskedKey}
            </span>
          </p>
        </div>
        <div className="flex flex-col items-end gap-1">
          <span className="text-xs text-zinc-600 dark:text-zinc-400">Key state</span>
          <KeyStateBadge state={state} />
        </div>
      </div>

      <div>
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <dl className="flex items-baseline gap-2">
            <dt className="text-sm text-zinc-600 dark:text-zinc-400">Remaining</dt>
            <dd className="text-3xl font-semibold tracking-tight tabular-nums">
              {formatUsd(balance.remaining_usd)}
            </dd>
            {sharedChild && (
              <dd>
                <Badge tone="sky">parent’s balance</Badge>
              </dd>
            )}
          </dl>
          <span className="text-sm text-zinc-600 tabular-nums dark:text-zinc-400">
            of {formatUsd(balance.limit_usd)} limit
            {share !== null ? ` · ${share.toFixed(share < 10 ? 1 : 0)}%` : ''}
            {state !== 'active' &&
              state !== 'depleted' &&
              ` · not usable while ${keyStateLabels[state].toLowerCase()}`}
          </span>
        </div>
        <div
          role="meter"
          aria-label="Share of the limit remaining"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={share ?? 0}
          aria-valuetext={
            share === null ? 'no limit set' : `${share.toFixed(1)}% of the limit remaining`
          }
          className="mt-2 h-2.5 w-full overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800"
        >
          <div
            className={classNames(
              'h-full rounded-full',
              // A balance the key cannot use is drawn grey, not as a healthy green.
              state !== 'active'
                ? 'bg-zinc-400 dark:bg-zinc-600'
                : share === null || share > 25
                  ? 'bg-emerald-600 dark:bg-emerald-500'
                  : share > 5
                    ? 'bg-amber-500'
                    : 'bg-red-600 dark:bg-red-500',
            )}
            style={{ width: `${share ?? 0}%` }}
          />
        </div>
      </div>

      <dl className="grid grid-cols-2 gap-2 sm:grid-cols-3 lg:grid-cols-4">
        <Figure label="Limit" value={formatUsd(balance.limit_usd)} />
        <Figure
          label="Consumption"
          value={formatUsd(balance.consumption_usd)}
          hint="settles asynchronously; can lag minutes"
        />
        <Figure label="Recharge" value={formatUsd(balance.recharge_usd)} />
        <Figure label="Credit" value={formatUsd(balance.credit_usd)} />
        <Figure label="Allocated" value={formatUsd(balance.allocated_usd)} />
        <Figure
          label="Grace (admission allowance)"
          value={`${formatUsd(balance.grace_usd)} allowance`}
          hint="lets a request start; not spendable"
        />
        <Figure
          label="Expires"
          value={<ExpiryText expiresAt={balance.expires_at} expired={balance.expired} />}
        />
        <Figure
          label="Flags"
          value={`${balance.expired ? 'expired' : 'not expired'}, ${balance.disabled ? 'disabled' : 'enabled'}`}
        />
      </dl>

      <div
        className={classNames(
          'rounded-md border p-3 text-sm',
          state === 'active'
            ? 'border-zinc-200 bg-zinc-50 dark:border-zinc-800 dark:bg-zinc-900'
            : 'border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-100',
        )}
        role={state === 'active' ? undefined : 'note'}
      >
        {view.guidance ? (
          <p>{view.guidance}</p>
        ) : (
          // The BFF always sends guidance; this is the spec's own wording should it ever not.
          <>
            <p>{keyStateMeanings[state]}</p>
            {state !== 'active' && (
              <p className="mt-1">
                Inspect the key’s state and balance; do not retry the same request unchanged.
              </p>
            )}
          </>
        )}
        {state === 'active' && childKey && (
          <p className="mt-2">
            A child key is also refused (HTTP 402) while its parent key is disabled or expired,
            and its balance does not show that. <strong>Validate key</strong> checks it with one
            minimal call and reports <em>Blocked</em> when that happens.
          </p>
        )}
      </div>

      <ul className="list-disc space-y-1 pl-5 text-xs text-zinc-600 dark:text-zinc-400">
        {sharedChild && (
          <li>
            This is a shared child key: it shows its parent’s balance, and its usage is charged to
            the parent.
          </li>
        )}
        {balance.note && <li>Gateway note: {balance.note}</li>}
        {view.cf_ray && (
          <li>
            Balance call cf-ray: <span className="font-mono select-all">{view.cf_ray}</span>
          </li>
        )}
      </ul>
    </section>
  );
}
