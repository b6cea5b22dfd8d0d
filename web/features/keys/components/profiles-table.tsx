import type { Profile } from '../../../../contract/workbench-api';
import { useBalance } from '../../../api/balance';
import { classNames } from '../../../components/class-names';
import { DataTable, type TableColumn } from '../../../components/data-table';
import { CssText } from '../../../components/css-text';
import { formatDateTime, formatUsd } from '../../../lib/format';
import { identityLabels } from '../key-state';
import { KeyStateBadge } from './key-state-badge';

function ProfileRow({
  profile,
  chosen,
  onChoose,
}: {
  profile: Profile;
  chosen: boolean;
  onChoose(): void;
}) {
  const balance = useBalance(profile.name);
  const view = balance.data;
  return (
    <tr
      className={classNames(
        'border-t border-zinc-100 dark:border-zinc-800',
        chosen && 'bg-sky-50 dark:bg-sky-950/30',
      )}
    >
      <th scope="row" className="px-2 py-1.5 text-left font-medium">
        <button
          type="button"
          onClick={onChoose}
          aria-current={chosen ? 'true' : undefined}
          className="rounded text-left hover:underline"
        >
          {profile.name}
        </button>
      </th>
      <td className="px-2 py-1.5 text-zinc-700 dark:text-zinc-300">
        {view
          ? (identityLabels[view.balance.identity] ?? view.balance.identity)
          : profile.identity
            ? identityLabels[profile.identity]
            : '—'}
      </td>
      <td className="px-2 py-1.5 font-mono text-xs">{profile.masked_key}</td>
      <td className="px-2 py-1.5">
        {balance.isPending ? (
          <span className="text-zinc-600 dark:text-zinc-400">loading…</span>
        ) : balance.isError ? (
          <span className="text-red-700 dark:text-red-300" title={balance.error.message}>
            could not load
          </span>
        ) : view ? (
          <KeyStateBadge state={view.state} quiet />
        ) : null}
      </td>
      <td className="px-2 py-1.5 text-right tabular-nums">
        {view ? formatUsd(view.balance.remaining_usd) : '—'}
      </td>
      <td className="px-2 py-1.5 text-right tabular-nums">
        {view ? formatUsd(view.balance.limit_usd) : '—'}
      </td>
      <td className="px-2 py-1.5 whitespace-nowrap">
        {view
          ? view.balance.expires_at === null
            ? 'never'
            : formatDateTime(view.balance.expires_at, 'seconds')
          : '—'}
      </td>
    </tr>
  );
}

const columns: TableColumn[] = [
  { key: 'profile', header: 'Profile' },
  { key: 'identity', header: 'Identity' },
  { key: 'key', header: 'Key' },
  { key: 'state', header: 'State' },
  // Drawn by CSS so the balance panel's label stays the page's one text "Remaining".
  { key: 'remaining', header: <CssText text="Remaining" />, align: 'right' },
  { key: 'limit', header: 'Limit', align: 'right' },
  { key: 'expires', header: 'Expires' },
];

/** Every profile at a glance; choosing one shows it above. */
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
      <DataTable columns={columns} className="w-full text-sm whitespace-nowrap">
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
