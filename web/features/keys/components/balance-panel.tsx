import type { ReactNode } from 'react';
import type { BalanceView, KeyState } from '../../../../contract/workbench-api';
import type { KeyKind } from '../../../../contract/gateway';
import { Badge } from '../../../components/badge';
import { classNames } from '../../../components/class-names';
import { formatDateTime, formatDuration, formatTime, formatUsd } from '../../../lib/format';
import { useNow } from '../../../lib/use-now';
import {
  formatShare,
  identityLabels,
  keyStateLabels,
  keyStateMeanings,
  leftNow,
  remainingShare,
} from '../key-state';
import { KeyStateBadge } from './key-state-badge';
import { OwnSpend, ownSpendDays } from './own-spend';

function Figure({ label, value, hint }: { label: string; value: ReactNode; hint?: string }) {
  return (
    <div className="flex flex-col gap-0.5 rounded-md bg-zinc-50 px-3 py-2 dark:bg-zinc-900">
      <dt className="text-xs text-zinc-600 dark:text-zinc-400">{label}</dt>
      <dd className="text-sm font-medium tabular-nums">{value}</dd>
      {hint && <dd className="text-xs text-zinc-600 dark:text-zinc-400">{hint}</dd>}
    </div>
  );
}

/** How the money figures make up Remaining, said once per panel (docs/keys-and-money.md). */
const figureRelations: Record<KeyKind, string> = {
  account:
    'Limit = Recharge + Credit − Allocated (what this account gave its allocated children); Remaining = Limit − Consumption − Pending.',
  allocated_child:
    'Limit = Allocated: what the parent account gave this key; Remaining = Limit − Consumption − Pending.',
  shared_child:
    'Limit = Recharge + Credit − Allocated; Remaining = Limit − Consumption − Pending: all of them the parent account’s.',
};

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
          ? `expired ${formatDuration(Math.max(0, -left))} ago`
          : `in ${formatDuration(left)}`}
      </span>
    </>
  );
}

/**
 * One profile's balance: state, remaining against the limit, every figure, and what to do.
 * `state` is the state to show now (the key's expiry may have passed since the view was
 * fetched); `staleSince` is set when the last refresh failed, and the figures are that old.
 */
export function BalancePanel({
  view,
  state,
  maskedKey,
  staleSince,
}: {
  view: BalanceView;
  state: KeyState;
  maskedKey: string | undefined;
  staleSince?: number | null;
}) {
  const { balance } = view;
  const left = leftNow(balance);
  const share = remainingShare(left.usd, balance.limit_usd);
  const sharedChild = balance.identity === 'shared_child';
  // A shared child's money figures are its parent's: say so on each, not only in a note.
  const moneyLabel = (label: string) => (sharedChild ? `${label} (parent’s)` : label);
  const blockedBy = view.blocked_by ?? null;
  // The BFF's guidance is for the state it saw; a key that expired since gets the generic words
  // until the refresh under way brings the BFF's.
  const guidance = state === view.state && view.guidance ? view.guidance : null;
  const expired = balance.expired || state === 'expired';
  return (
    <section
      aria-labelledby="balance-heading"
      className="flex flex-col gap-4 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800"
    >
      {staleSince ? (
        <p
          role="note"
          aria-label="Stale figures"
          className="-mx-1 rounded-md border border-zinc-300 bg-zinc-100 px-2 py-1 text-xs text-zinc-800 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200"
        >
          <strong>Stale:</strong> these figures are from {formatTime(staleSince)}; the latest
          refresh failed (see above).
        </p>
      ) : null}
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
        <div className="flex max-w-full flex-col items-start gap-1 sm:items-end sm:text-right">
          <span className="text-xs text-zinc-600 dark:text-zinc-400">
            Key state{staleSince ? ` (as of ${formatTime(staleSince)})` : ''}
          </span>
          <KeyStateBadge state={state} />
          {blockedBy && (
            <span className="text-xs text-red-800 dark:text-red-300">
              because {blockedBy.summary}
            </span>
          )}
        </div>
      </div>

      <div className={classNames(staleSince ? 'opacity-70' : undefined)}>
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <dl className="flex flex-wrap items-baseline gap-2">
            <dt className="text-sm text-zinc-600 dark:text-zinc-400">Remaining</dt>
            <dd className="text-3xl font-semibold tracking-tight tabular-nums">
              {formatUsd(left.usd)}
            </dd>
            {left.pendingUsd > 0 && (
              <dd
                className="text-sm text-zinc-600 tabular-nums dark:text-zinc-400"
                title="Charged to requests and not settled into Consumption yet; already taken off Remaining"
              >
                including {formatUsd(left.pendingUsd)} pending
              </dd>
            )}
            {sharedChild && (
              <dd>
                <Badge tone="sky">parent’s balance</Badge>
              </dd>
            )}
            {staleSince ? (
              <dd>
                <Badge>stale · {formatTime(staleSince)}</Badge>
              </dd>
            ) : null}
          </dl>
          <span className="text-sm text-zinc-600 tabular-nums dark:text-zinc-400">
            of {formatUsd(balance.limit_usd)} limit
            {share !== null ? ` · ${formatShare(share)} left` : ''}
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
            share === null ? 'no limit set' : `${formatShare(share)} of the limit remaining`
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

      <dl
        className={classNames(
          'grid grid-cols-2 gap-2 sm:grid-cols-3 lg:grid-cols-4',
          staleSince ? 'opacity-70' : undefined,
        )}
      >
        <Figure label={moneyLabel('Limit')} value={formatUsd(balance.limit_usd)} />
        <Figure
          label={moneyLabel('Consumption')}
          value={formatUsd(balance.consumption_usd)}
          hint="settled; recent requests are pending until they settle"
        />
        {balance.pending_usd !== undefined && (
          <Figure
            label={moneyLabel('Pending')}
            value={formatUsd(left.pendingUsd)}
            hint="charged, not settled yet; already off Remaining"
          />
        )}
        <Figure
          label={moneyLabel('Recharge')}
          value={formatUsd(balance.recharge_usd)}
          hint="money paid in (top-ups); Remaining counts against the limit"
        />
        {sharedChild && (
          <Figure
            label={`Own spend (${ownSpendDays} days)`}
            value={<OwnSpend profile={view.profile} />}
            hint="this key’s own requests, out of the parent’s balance"
          />
        )}
        <Figure label={moneyLabel('Credit')} value={formatUsd(balance.credit_usd)} />
        <Figure label={moneyLabel('Allocated')} value={formatUsd(balance.allocated_usd)} />
        <Figure
          label="Grace (admission allowance)"
          value={`${formatUsd(balance.grace_usd)} allowance`}
          hint="lets a request start; not spendable"
        />
        <Figure
          label="Expires"
          value={<ExpiryText expiresAt={balance.expires_at} expired={expired} />}
        />
        <Figure
          label="Flags"
          value={`${expired ? 'expired' : 'not expired'}, ${balance.disabled ? 'disabled' : 'enabled'}${blockedBy ? `; ${blockedBy.summary}` : ''}`}
        />
      </dl>
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        {figureRelations[balance.identity]}
      </p>

      <div
        className={classNames(
          'rounded-md border p-3 text-sm',
          state === 'active'
            ? 'border-zinc-200 bg-zinc-50 dark:border-zinc-800 dark:bg-zinc-900'
            : 'border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-100',
        )}
        role={state === 'active' ? undefined : 'note'}
      >
        {guidance ? (
          <p>{guidance}</p>
        ) : (
          // The BFF always sends guidance; this generic wording stands in while it is on its way.
          <>
            <p>{keyStateMeanings[state]}</p>
            {state !== 'active' && (
              <p className="mt-1">
                Inspect the key’s state and balance; do not retry the same request unchanged.
              </p>
            )}
          </>
        )}
      </div>

      <ul className="list-disc space-y-1 pl-5 text-xs text-zinc-600 dark:text-zinc-400">
        {sharedChild && (
          <li>
            This is a shared child key: it shows its parent’s balance, and its usage is charged to
            the parent.
          </li>
        )}
        {view.cf_ray && (
          <li>
            Balance call cf-ray: <span className="font-mono select-all">{view.cf_ray}</span>
          </li>
        )}
      </ul>
      {balance.note && (
        <details className="text-xs text-zinc-600 dark:text-zinc-400">
          <summary className="cursor-pointer">The gateway’s note</summary>
          <p className="mt-1">{balance.note}</p>
        </details>
      )}
    </section>
  );
}
