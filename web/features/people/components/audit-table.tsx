/** The audit log for admins: who changed what, when, before and after; and its downloads. */
import type { AuditEntry } from '../../../../contract/workbench-people';
import { DataTable, columnVisibility, type TableColumn } from '../../../components/data-table';
import { formatDateTime } from '../../../lib/format';
import { auditDownloadPath } from '../api/audit';
import { changeLines } from '../audit-changes';

const columns: TableColumn[] = [
  { key: 'at', header: 'When' },
  { key: 'who', header: 'Who' },
  { key: 'action', header: 'Change' },
  { key: 'target', header: 'Of', hideBelow: 'sm' },
  { key: 'changes', header: 'Before → after', hideBelow: 'md', width: 'w-2/5' },
];

const actorText = (entry: AuditEntry) =>
  entry.actor.kind === 'person'
    ? (entry.actor.email ?? entry.actor.id ?? 'a person')
    : entry.actor.kind === 'access_token'
      ? 'access token'
      : entry.actor.kind === 'local'
        ? 'this machine'
        : 'the workbench';

export function AuditDownloads() {
  const linkClass =
    'inline-flex h-8 items-center rounded-md border border-zinc-300 px-3 text-sm font-medium hover:bg-zinc-50 dark:border-zinc-700 dark:hover:bg-zinc-800';
  return (
    <div className="flex gap-2">
      <a className={linkClass} href={auditDownloadPath('csv')} download="workbench-audit.csv">
        Download CSV
      </a>
      <a className={linkClass} href={auditDownloadPath('json')} download="workbench-audit.json">
        Download JSON
      </a>
    </div>
  );
}

export function AuditTable({ entries }: { entries: AuditEntry[] }) {
  return (
    <DataTable columns={columns} label="Audit log" className="w-full table-fixed text-sm">
      {entries.map((entry) => (
        <tr key={entry.id} className="border-t border-zinc-200 align-top dark:border-zinc-800">
          <td className="px-2 py-1.5 whitespace-nowrap">
            {formatDateTime(entry.at, 'milliseconds')}
          </td>
          <td className="px-2 py-1.5 break-words">{actorText(entry)}</td>
          <td className="px-2 py-1.5 font-mono text-xs">{entry.action}</td>
          <td className={`px-2 py-1.5 font-mono text-xs break-all ${columnVisibility('sm') ?? ''}`}>
            {entry.target.type} {entry.target.id}
          </td>
          <td
            className={`px-2 py-1.5 font-mono text-xs break-words ${columnVisibility('md') ?? ''}`}
          >
            <ul>
              {changeLines(entry.before, entry.after).map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
