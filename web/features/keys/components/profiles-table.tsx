import type { Profile } from '../../../../contract/workbench-api';
import { useBalance } from '../../../api/balance';
import { classNames } from '../../../components/class-names';
import { DataTable, columnVisibility, type TableColumn } from '../../../components/data-table';
import { formatDateTime, formatTime, formatUsd } from '../../../lib/format';
import { identityLabels, leftNow } from '../key-state';
import { useLiveKeyState } from '../use-live-key-state';
import { KeyStateBadge } from './key-state-badge';

const columns = [
  { key: 'profile', header: 'Profile' },
  { key: 'identity', header: 'Identity', hideBelow: 'md' },
  { key: 'key', header: 'Key', hideBelow: 'lg' },
  { key: 'state', header: 'State' },
  { key: 'remaining', header: 'Remaining', align: 'right' },
  { key: 'limit', header: 'Limit', align: 'right', hideBelow: 'sm' },
  { key: 'expires', header: 'Expires', hideBelow: 'md' },
] satisfies TableColumn[];

const hidden = (key: string) =>
  columnVisibility(columns.find((column) => column.key === key)?.hideBelow);

/** A figure from the last answer; marked stale, with its time, when the refresh since failed. */
function Amount({ value, staleSince }: { value: number | undefined; staleSince: number | null }) {
  if (value === undefined) return <>—</>;
  return (
    <span className={classNames(staleSince !== null && 'text-zinc-500 dark:text-zinc-400')}>
      {formatUsd(value)}
      {staleSince !== null && (
        <span className="block text-xs whitespace-nowrap">stale · {formatTime(staleSince)}</span>
      )}
    </span>
  );
}

function ProfileRow({
  profile,
  chosen,
  onChoose,
}: {
  profile: Profile;
  chosen: boolean;
  onChoose(): void;
}) {
  const balance = useBalance(profile.name, { live: true });
  const view = balance.data;
  const state = useLiveKeyState(view);
  const staleSince = balance.isError && view ? balance.dataUpdatedAt : null;
  return (
    <tr
      // The whole row chooses the profile; the button in it is the keyboard's way.
      onClick={onChoose}
      className={classNames(
        'cursor-pointer border-t border-zinc-100 hover:bg-zinc-50 dark:border-zinc-800 dark:hover:bg-zinc-900',
        chosen && 'bg-sky-50 hover:bg-sky-50 dark:bg-sky-950/30 dark:hover:bg-sky-950/30',
      )}
    >
      <th scope="row" className="px-2 py-1.5 text-left font-medium">
        <button
          type="button"
          onClick={(event) => {
            event.stopPropagation();
            onChoose();
          }}
          aria-current={chosen ? 'true' : undefined}
          className="rounded text-left hover:underline"
        >
          {profile.name}
        </button>
      </th>
      <td
        className={classNames('px-2 py-1.5 text-zinc-700 dark:text-zinc-300', hidden('identity'))}
      >
        {view
          ? (identityLabels[view.balance.identity] ?? view.balance.identity)
          : profile.identity
            ? identityLabels[profile.identity]
            : '—'}
      </td>
      <td className={classNames('px-2 py-1.5 font-mono text-xs', hidden('key'))}>
        {profile.masked_key}
      </td>
      <td className="px-2 py-1.5 whitespace-normal sm:whitespace-nowrap">
        {balance.isPending ? (
          <span className="text-zinc-600 dark:text-zinc-400">loading…</span>
        ) : balance.isError ? (
          <span className="text-red-700 dark:text-red-300" title={balance.error.message}>
            could not load
          </span>
        ) : state ? (
          <span className="flex flex-col items-start gap-0.5">
            <KeyStateBadge state={state} />
            {view?.blocked_by && (
              <span className="text-xs whitespace-normal text-red-800 dark:text-red-300">
                {view.blocked_by.summary}
              </span>
            )}
          </span>
        ) : null}
      </td>
      <td className="px-2 py-1.5 text-right tabular-nums">
        <Amount value={view && leftNow(view.balance).usd} staleSince={staleSince} />
      </td>
      <td className={classNames('px-2 py-1.5 text-right tabular-nums', hidden('limit'))}>
        <Amount value={view?.balance.limit_usd} staleSince={staleSince} />
      </td>
      <td className={classNames('px-2 py-1.5 whitespace-nowrap', hidden('expires'))}>
        {view
          ? view.balance.expires_at === null
            ? 'never'
            : formatDateTime(view.balance.expires_at, 'seconds')
          : '—'}
      </td>
    </tr>
  );
}

/** Every profile at a glance; choosing one (a click anywhere on its row) shows it above. */
export function ProfilesTable({
  profiles,
  chosen,
  onChoose,
}: {
  profiles: Profile[];
  chosen: string | null;
  onChoose(name: string): void;
}) {
  return (
    <section aria-labelledby="all-profiles-heading" className="flex flex-col gap-2">
      <h2 id="all-profiles-heading" className="text-base font-semibold">
        All key profiles
      </h2>
      <DataTable
        columns={columns}
        label="All key profiles"
        className="w-full text-sm whitespace-nowrap"
      >
        {profiles.map((profile) => (
          <ProfileRow
            key={profile.name}
            profile={profile}
            chosen={profile.name === chosen}
            onChoose={() => onChoose(profile.name)}
          />
        ))}
      </DataTable>
    </section>
  );
}
