import type { ChildKey } from '../../../../contract/workbench-api';
import { Badge } from '../../../components/badge';
import { classNames } from '../../../components/class-names';
import { DataTable, columnVisibility, type TableColumn } from '../../../components/data-table';
import { formatDateTime, formatUsd } from '../../../lib/format';
import { childKindLabels, managedKeyState } from '../key-state';
import { ChildKeyActions, type ChildKeyHandlers } from './child-key-actions';
import { KeyStateBadge } from './key-state-badge';
import { OwnSpend } from './own-spend';

const columns = [
  { key: 'name', header: 'Name' },
  { key: 'key', header: 'Key', hideBelow: 'lg' },
  { key: 'kind', header: 'Kind', hideBelow: 'md' },
  { key: 'state', header: 'State' },
  { key: 'remaining', header: 'Remaining', align: 'right' },
  { key: 'limit', header: 'Limit', align: 'right', hideBelow: 'sm' },
  { key: 'expires', header: 'Expires', hideBelow: 'md' },
  { key: 'profile', header: 'Secret held by', hideBelow: 'lg' },
  { key: 'actions', header: <span className="sr-only">Actions</span> },
] satisfies TableColumn[];

const hidden = (key: string) =>
  columnVisibility(columns.find((column) => column.key === key)?.hideBelow);

/**
 * On a phone each row is a card that fits the width, with no sideways scrolling: name, state and
 * remaining on one line (the header's cells line up with them), the actions wrapped below.
 */
const phoneCards =
  'max-sm:block max-sm:[&_tbody]:block max-sm:[&_thead]:block max-sm:[&_tr]:grid max-sm:[&_tr]:grid-cols-[minmax(0,1fr)_6.75rem_7.5rem] max-sm:[&_tr]:items-center';

function StateCell({ state }: { state: string }) {
  const known = managedKeyState(state);
  return known ? <KeyStateBadge state={known} /> : <Badge>{state}</Badge>;
}

/**
 * A shared child spends the account's balance: its figures are the account's, said so, with the
 * key's own spend beside them.
 */
function Money({
  value,
  shared,
  account,
  keyId,
}: {
  value: number | null;
  shared: boolean;
  account: string;
  keyId: string;
}) {
  if (shared) {
    return (
      <span className="flex flex-col items-end">
        {value === null ? '—' : formatUsd(value)}
        <span className="text-xs text-zinc-600 dark:text-zinc-400">account’s</span>
        <OwnSpend profile={account} keyId={keyId} inRow />
      </span>
    );
  }
  return <>{formatUsd(value)}</>;
}

function ChildKeyRow({
  account,
  childKey,
  handlers,
}: {
  account: string;
  childKey: ChildKey;
  handlers: ChildKeyHandlers;
}) {
  const shared = childKey.kind === 'shared_child';
  const revoked = childKey.state === 'revoked';
  return (
    <tr
      className={classNames(
        'border-t border-zinc-100 dark:border-zinc-800',
        revoked && 'text-zinc-600 dark:text-zinc-400',
      )}
    >
      <th scope="row" className="px-2 py-1.5 text-left font-medium whitespace-normal">
        {childKey.name}
      </th>
      <td className={classNames('px-2 py-1.5 font-mono text-xs', hidden('key'))}>{childKey.key}</td>
      <td className={classNames('px-2 py-1.5', hidden('kind'))}>
        {childKindLabels[childKey.kind] ?? childKey.kind}
      </td>
      <td className="px-2 py-1.5">
        <StateCell state={childKey.state} />
      </td>
      <td className="px-2 py-1.5 text-right tabular-nums">
        {revoked ? (
          '—'
        ) : (
          <Money
            value={childKey.remaining_usd}
            shared={shared}
            account={account}
            keyId={childKey.id}
          />
        )}
      </td>
      <td className={classNames('px-2 py-1.5 text-right tabular-nums', hidden('limit'))}>
        {shared ? (
          <span className="text-zinc-600 dark:text-zinc-400">account’s</span>
        ) : (
          formatUsd(childKey.limit_usd)
        )}
      </td>
      <td className={classNames('px-2 py-1.5', hidden('expires'))}>
        {childKey.expires_at === null ? 'never' : formatDateTime(childKey.expires_at, 'seconds')}
      </td>
      <td className={classNames('px-2 py-1.5', hidden('profile'))}>
        {childKey.profile ?? (
          <span
            className="text-zinc-600 dark:text-zinc-400"
            title="No workbench profile holds this key’s secret (it was made elsewhere, or its profile was removed)."
          >
            none
          </span>
        )}
      </td>
      <td className="px-2 py-1.5 max-sm:col-span-3 max-sm:pt-0">
        <ChildKeyActions account={account} childKey={childKey} handlers={handlers} />
      </td>
    </tr>
  );
}

/** The account's child keys, one row each, with what can be done to each. */
export function ChildKeysTable({
  account,
  keys,
  handlers,
}: {
  /** The account profile whose children these are. */
  account: string;
  keys: ChildKey[];
  handlers: ChildKeyHandlers;
}) {
  return (
    <DataTable
      columns={columns}
      label="Child keys"
      className={classNames('w-full text-sm whitespace-nowrap', phoneCards)}
    >
      {keys.map((childKey) => (
        <ChildKeyRow key={childKey.id} account={account} childKey={childKey} handlers={handlers} />
      ))}
    </DataTable>
  );
}
