/**
 * The signed-in person's own key: its budget this period, the models it may use, and Hand over,
 * which gives it a new secret shown once (for Claude Code, Codex or one's own code); the secret
 * shown before stops working.
 */
import { useId, useState } from 'react';
import type { Person } from '../../../../contract/workbench-people';
import { Button } from '../../../components/button';
import { CopyButton } from '../../../components/copy-button';
import { ErrorPanel } from '../../../components/error-panel';
import { useHandOverOwnKey } from '../api/hand-over-own-key';
import { modelsText, periodLabels, resetsText, spendText } from '../person-figures';

export function OwnKeyPanel({ person }: { person: Person }) {
  const handOver = useHandOverOwnKey();
  const [confirmed, setConfirmed] = useState(false);
  const checkboxId = useId();
  const key = person.key;
  return (
    <section
      aria-labelledby="own-key-heading"
      className="flex flex-col gap-3 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800"
    >
      <h2 id="own-key-heading" className="text-base font-semibold">
        Your key
      </h2>
      {key === null ? (
        <p className="text-sm text-zinc-700 dark:text-zinc-300">
          You have no key of your own yet.{' '}
          {person.key_problem ?? 'Ask an admin: the workbench makes one at sign-in.'}
        </p>
      ) : (
        <>
          <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
            <dt className="text-zinc-600 dark:text-zinc-400">Profile</dt>
            <dd className="font-mono">{person.profile}</dd>
            <dt className="text-zinc-600 dark:text-zinc-400">Key</dt>
            <dd className="font-mono">{key.key}</dd>
            <dt className="text-zinc-600 dark:text-zinc-400">Spend</dt>
            <dd>
              {spendText(key)} {resetsText(key) && <span>({resetsText(key)})</span>}
            </dd>
            <dt className="text-zinc-600 dark:text-zinc-400">Budget period</dt>
            <dd>{periodLabels[key.limit_reset]}</dd>
            <dt className="text-zinc-600 dark:text-zinc-400">Models</dt>
            <dd>{modelsText(key.allowed_models)}</dd>
          </dl>
          {handOver.data ? (
            <div className="flex flex-col gap-2 rounded-md bg-amber-50 p-3 text-sm dark:bg-amber-950">
              <p>
                Your key, shown this once. Put it in your tool’s settings now (for example{' '}
                <code className="font-mono">ANTHROPIC_AUTH_TOKEN</code> for Claude Code); the one
                shown before no longer works.
              </p>
              <code aria-label="Your new key" className="font-mono break-all">
                {handOver.data.secret}
              </code>
              <div>
                <CopyButton text={handOver.data.secret} label="Copy your key">
                  Copy
                </CopyButton>
              </div>
            </div>
          ) : (
            <div className="flex flex-wrap items-center gap-3 text-sm">
              <label htmlFor={checkboxId} className="flex items-center gap-2">
                <input
                  id={checkboxId}
                  type="checkbox"
                  checked={confirmed}
                  onChange={(event) => setConfirmed(event.target.checked)}
                />
                I understand the key is shown once, and the one shown before stops working
              </label>
              <Button
                variant="primary"
                disabled={!confirmed || handOver.isPending}
                onClick={() => handOver.mutate()}
              >
                {handOver.isPending ? 'Handing over…' : 'Hand over'}
              </Button>
            </div>
          )}
          {handOver.isError && <ErrorPanel what="Handing your key over" error={handOver.error} />}
        </>
      )}
    </section>
  );
}
