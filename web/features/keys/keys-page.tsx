import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useBalance } from '../../api/balance';
import { useProfiles } from '../../api/profiles';
import { useProfile } from '../../app/profile-context';
import { Button } from '../../components/button';
import { ErrorPanel } from '../../components/error-panel';
import { PageLayout } from '../../components/page-layout';
import { EmptyState, LoadingState } from '../../components/states';
import { formatTime, toMilliseconds } from '../../lib/format';
import { BalanceChart, keepsSample, type BalanceSample } from './components/balance-chart';
import { balanceHistoryDays, dailyBalances } from './balance-history';
import { useActivity } from '../../api/activity';
import { BalancePanel } from './components/balance-panel';
import { ChildKeysSection } from './components/child-keys-section';
import { NotificationsSection } from './components/notifications-section';
import { ProfilesTable } from './components/profiles-table';
import { ValidateKeyDialog } from './components/validate-key-dialog';
import { useLiveKeyState } from './use-live-key-state';
import { leftNow } from './key-state';

/** Balance samples per profile, kept for as long as the page is open. */
type SampleHistory = Record<string, BalanceSample[]>;

/**
 * `/keys`: the chosen profile's identity, state and balance, an account profile's child keys,
 * and every profile at a glance. The state stays current without a reload: polled while the
 * page is visible, asked again on focus, and turned Expired at the moment the key expires.
 */
export function KeysPage() {
  const { profile, setProfile, profiles } = useProfile();
  const profilesQuery = useProfiles();
  const queryClient = useQueryClient();
  const balance = useBalance(profile, { live: true });
  const [history, setHistory] = useState<SampleHistory>({});
  const panelRef = useRef<HTMLDivElement>(null);

  const view = balance.data;
  const state = useLiveKeyState(view);
  useEffect(() => {
    if (!view) return;
    const sample = { time: toMilliseconds(view.fetched_at), remaining: leftNow(view.balance).usd };
    // Recording an external observation (a fetched sample) into page state.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    setHistory((current) => {
      const samples = current[view.profile] ?? [];
      if (!keepsSample(samples, sample)) return current;
      return { ...current, [view.profile]: [...samples, sample].slice(-200) };
    });
  }, [view]);

  // The past days' ends, from the daily spend Activity has: the line is there on every visit.
  const activity = useActivity(profile, balanceHistoryDays, null);
  const pastDays = useMemo(
    () =>
      view && activity.data?.profile === view.profile
        ? dailyBalances(leftNow(view.balance).usd, activity.data.data)
        : [],
    [view, activity.data],
  );

  const chosen = profiles.find((candidate) => candidate.name === profile);
  const maskedKey = chosen?.masked_key;
  // Only an account key makes child keys and webhooks (a child gets 403 on those routes).
  const isAccount = (view?.balance.identity ?? chosen?.identity) === 'account';
  const lastRefresh = balance.dataUpdatedAt || null;
  // The last refresh failed but an earlier answer is still shown: its figures are that old.
  const staleSince = balance.isError && view ? balance.dataUpdatedAt : null;

  function refresh() {
    void queryClient.invalidateQueries({ queryKey: ['balance'] });
    void queryClient.invalidateQueries({ queryKey: ['profiles'] });
  }

  /** A profile chosen in the table is shown above: brought into view on a small screen. */
  function chooseFromTable(name: string) {
    setProfile(name);
    window.requestAnimationFrame(() =>
      panelRef.current?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' }),
    );
  }

  return (
    <PageLayout
      title="Keys"
      description="Identity, state and balance of the key profiles the workbench holds. Keys are shown masked only."
      actions={
        <>
          <span className="text-xs text-zinc-600 dark:text-zinc-400" aria-live="polite">
            {balance.isFetching
              ? 'Refreshing…'
              : balance.isError
                ? `Refresh failed at ${formatTime(balance.errorUpdatedAt)}`
                : lastRefresh
                  ? `Last refresh ${formatTime(lastRefresh)}`
                  : ''}
          </span>
          <Button onClick={refresh} disabled={balance.isFetching}>
            Refresh
          </Button>
          {profile && <ValidateKeyDialog profile={profile} />}
        </>
      }
    >
      {profilesQuery.isPending ? (
        <LoadingState>Loading key profiles…</LoadingState>
      ) : profilesQuery.isError ? (
        <ErrorPanel
          what="Loading the key profiles"
          error={profilesQuery.error}
          onRetry={() => void profilesQuery.refetch()}
        />
      ) : profiles.length === 0 || profile === null ? (
        <EmptyState title="No key profiles">
          Start the workbench with <code className="font-mono">WORKBENCH_KEYS_FILE</code> or{' '}
          <code className="font-mono">GATEWAY_API_KEY</code> set.
        </EmptyState>
      ) : (
        <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_22rem]">
          <div ref={panelRef} className="flex min-w-0 scroll-mt-16 flex-col gap-4">
            {balance.isError && (
              <ErrorPanel
                what={`Loading the balance of “${profile}”`}
                error={balance.error}
                onRetry={() => void balance.refetch()}
              />
            )}
            {balance.isPending ? (
              <LoadingState>Loading the balance of {profile}…</LoadingState>
            ) : view && state ? (
              <BalancePanel
                view={view}
                state={state}
                maskedKey={maskedKey}
                staleSince={staleSince}
              />
            ) : null}
          </div>
          <div className="flex min-w-0 flex-col gap-4">
            <BalanceChart samples={[...pastDays, ...(history[profile] ?? [])]} />
          </div>
          {isAccount && (
            <div className="min-w-0 lg:col-span-2">
              <ChildKeysSection key={profile} account={profile} />
            </div>
          )}
          {isAccount && (
            <div className="min-w-0 lg:col-span-2">
              <NotificationsSection key={profile} account={profile} />
            </div>
          )}
          <div className="min-w-0 lg:col-span-2">
            <ProfilesTable profiles={profiles} chosen={profile} onChoose={chooseFromTable} />
          </div>
        </div>
      )}
    </PageLayout>
  );
}
