import { Link } from 'react-router';
import type { CreatedChildKey } from '../../../../contract/workbench-api';
import { identityLabels } from '../key-state';

/**
 * What a new child key shows of itself: its masked form, the profile that holds it, and where
 * the secret is kept. Never the full key: it stays with the workbench server.
 */
export function CreatedChildKeySummary({ created }: { created: CreatedChildKey }) {
  const profile = created.profile.name;
  return (
    <div
      role="status"
      className="flex flex-col gap-2 rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm text-emerald-950 dark:border-emerald-800 dark:bg-emerald-950/40 dark:text-emerald-50"
    >
      <p className="font-semibold">Created “{created.key.name}”.</p>
      <dl className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-3 gap-y-1">
        <dt className="text-emerald-900 dark:text-emerald-200">Key</dt>
        <dd className="font-mono text-xs">{created.profile.masked_key}</dd>
        <dt className="text-emerald-900 dark:text-emerald-200">Kind</dt>
        <dd>{identityLabels[created.key.kind] ?? created.key.kind}</dd>
        <dt className="text-emerald-900 dark:text-emerald-200">Profile</dt>
        <dd className="font-medium">{profile}</dd>
        <dt className="text-emerald-900 dark:text-emerald-200">Secret stored in</dt>
        <dd className="text-xs [overflow-wrap:anywhere]">{created.stored_in}</dd>
      </dl>
      <p>
        The full key is kept by the workbench server; it is never shown. Choose the profile “
        {profile}” in the <strong>Key</strong> picker to use it.
      </p>
      <Link
        to={`/playground?profile=${encodeURIComponent(profile)}`}
        className="self-start rounded text-sm font-medium text-sky-800 underline hover:no-underline dark:text-sky-300"
      >
        Use “{profile}” in the playground
      </Link>
    </div>
  );
}
