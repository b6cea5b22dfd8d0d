/**
 * Everyone who signed in, for admins: their key and its state, this period's spend against the
 * budget, the models, the last request; and per person Change, Disable or Enable, and Remove.
 */
import { Fragment, useState } from 'react';
import type { Person } from '../../../../contract/workbench-people';
import { Badge } from '../../../components/badge';
import { Button } from '../../../components/button';
import { DataTable, columnVisibility, type TableColumn } from '../../../components/data-table';
import { ErrorPanel } from '../../../components/error-panel';
import { formatDateTime } from '../../../lib/format';
import { useRemovePerson } from '../api/remove-person';
import { useUpdatePerson } from '../api/update-person';
import { modelsText, periodLabels, resetsText, spendText } from '../person-figures';
import { PersonEditor } from './person-editor';

const columns: TableColumn[] = [
  { key: 'person', header: 'Person' },
  { key: 'key', header: 'Key', hideBelow: 'md' },
  { key: 'spend', header: 'This period' },
  { key: 'period', header: 'Period', hideBelow: 'sm' },
  { key: 'models', header: 'Models', hideBelow: 'lg' },
  { key: 'last', header: 'Last request', hideBelow: 'md' },
  { key: 'actions', header: 'Actions', align: 'right' },
];

function PersonRow({ person }: { person: Person }) {
  const [editing, setEditing] = useState(false);
  const [removing, setRemoving] = useState(false);
  const update = useUpdatePerson();
  const remove = useRemovePerson();
  const name = person.name ?? person.email ?? person.id;
  const key = person.key;
  const failure = update.error ?? remove.error;
  return (
    <Fragment>
      <tr className="border-t border-zinc-200 align-top dark:border-zinc-800">
        <td className="px-2 py-2">
          <div className="font-medium">{name}</div>
          <div className="text-xs text-zinc-600 dark:text-zinc-400">{person.email}</div>
          <div className="mt-1 flex flex-wrap gap-1">
            <Badge tone={person.role === 'admin' ? 'violet' : 'neutral'}>
              {person.role === 'admin' ? 'Admin' : 'Member'}
            </Badge>
            {person.disabled && <Badge tone="red">Disabled</Badge>}
          </div>
        </td>
        <td className={`px-2 py-2 ${columnVisibility('md') ?? ''}`}>
          {key ? (
            <>
              <div className="font-mono text-xs">{key.key}</div>
              <div className="text-xs text-zinc-600 capitalize dark:text-zinc-400">{key.state}</div>
            </>
          ) : (
            <span className="text-xs text-zinc-600 dark:text-zinc-400">
              {person.key_problem ?? 'No key'}
            </span>
          )}
        </td>
        <td className="px-2 py-2 tabular-nums">
          {key ? (
            <>
              <div>{spendText(key)}</div>
              {resetsText(key) && (
                <div className="text-xs text-zinc-600 dark:text-zinc-400">{resetsText(key)}</div>
              )}
            </>
          ) : (
            '—'
          )}
        </td>
        <td className={`px-2 py-2 ${columnVisibility('sm') ?? ''}`}>
          {key ? periodLabels[key.limit_reset] : '—'}
        </td>
        <td className={`px-2 py-2 break-words ${columnVisibility('lg') ?? ''}`}>
          {key ? modelsText(key.allowed_models) : '—'}
        </td>
        <td className={`px-2 py-2 whitespace-nowrap ${columnVisibility('md') ?? ''}`}>
          {person.last_request_at === null
            ? 'None'
            : formatDateTime(person.last_request_at, 'seconds')}
        </td>
        <td className="px-2 py-2">
          <div className="flex flex-wrap justify-end gap-1">
            {key && (
              <Button
                variant="secondary"
                aria-label={`Change ${name}'s budget`}
                aria-expanded={editing}
                onClick={() => setEditing((open) => !open)}
              >
                Change
              </Button>
            )}
            <Button
              variant="secondary"
              aria-label={`${person.disabled ? 'Enable' : 'Disable'} ${name}`}
              disabled={update.isPending}
              onClick={() =>
                update.mutate({ id: person.id, change: { disabled: !person.disabled } })
              }
            >
              {person.disabled ? 'Enable' : 'Disable'}
            </Button>
            {removing ? (
              <>
                <Button
                  variant="danger"
                  aria-label={`Confirm removing ${name}`}
                  disabled={remove.isPending}
                  onClick={() => remove.mutate(person.id)}
                >
                  Revoke key and remove
                </Button>
                <Button variant="ghost" onClick={() => setRemoving(false)}>
                  Keep
                </Button>
              </>
            ) : (
              <Button
                variant="ghost"
                aria-label={`Remove ${name}`}
                onClick={() => setRemoving(true)}
              >
                Remove
              </Button>
            )}
          </div>
        </td>
      </tr>
      {(editing || failure) && (
        <tr>
          <td colSpan={columns.length} className="px-2">
            {editing && person.key && (
              <PersonEditor person={person} onDone={() => setEditing(false)} />
            )}
            {failure && <ErrorPanel what={`Changing ${name}`} error={failure} />}
          </td>
        </tr>
      )}
    </Fragment>
  );
}

export function PeopleTable({ people }: { people: Person[] }) {
  return (
    <DataTable columns={columns} label="People" className="w-full text-sm">
      {people.map((person) => (
        <PersonRow key={person.id} person={person} />
      ))}
    </DataTable>
  );
}
