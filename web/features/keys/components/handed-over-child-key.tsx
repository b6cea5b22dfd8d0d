import type { HandedOverChildKey } from '../../../../contract/workbench-api';
import { CopyButton } from '../../../components/copy-button';
import { identityLabels } from '../key-state';
import { useCloseGuard } from './close-guard';
import { useState } from 'react';

/**
 * A handed-over child key, shown this once in full with Copy: the workbench keeps no copy, so
 * once the dialog closes nobody can show it again.
 */
export function HandedOverChildKeySummary({
  handed,
  action = 'Created',
}: {
  handed: HandedOverChildKey;
  /** What was done to the key: a new one, or a new secret for one (the old secret stopped). */
  action?: 'Created' | 'Rotated';
}) {
  const [copied, setCopied] = useState(false);
  useCloseGuard(!copied);
  return (
    // A region, not a live status: a screen reader should not read the full key aloud unasked.
    <section
      aria-label="Handed-over key"
      className="flex flex-col gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-50"
    >
      <p className="font-semibold">
        {action} “{handed.key.name}”. Copy its {action === 'Rotated' ? 'new ' : ''}key now.
      </p>
      <dl className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-3 gap-y-1">
        <dt className="text-amber-900 dark:text-amber-200">Kind</dt>
        <dd>{identityLabels[handed.key.kind] ?? handed.key.kind}</dd>
        <dt className="text-amber-900 dark:text-amber-200">Full key</dt>
        <dd className="flex flex-wrap items-center gap-2">
          <code
            aria-label="Full key"
            className="font-mono text-xs [overflow-wrap:anywhere] select-all"
          >
            {handed.secret}
          </code>
          <CopyButton
            text={handed.secret}
            label="Copy the full key"
            onCopied={() => setCopied(true)}
          />
        </dd>
      </dl>
      <p>
        This is the only time the key is shown. The workbench keeps no copy: no profile holds it,
        and closing this dialog forgets it. The Keys page lists it masked, as{' '}
        <span className="font-mono text-xs">{handed.key.key}</span>.
      </p>
    </section>
  );
}
