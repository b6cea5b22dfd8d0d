/**
 * The policy for people's new keys (those in no policy group): kind, budget, period, models. An
 * admin's choice is kept by the workbench over WORKBENCH_MEMBER_KEY_*; keys made before keep theirs.
 */
import { useState, type FormEvent } from 'react';
import type { LimitReset, MemberKeyPolicy } from '../../../../contract/workbench-people';
import { Button } from '../../../components/button';
import { ErrorPanel } from '../../../components/error-panel';
import { SelectField } from '../../../components/select-field';
import { TextField } from '../../../components/text-field';
import { useUpdatePolicy } from '../api/update-policy';
import { parseModels, periodOptions } from '../person-figures';

const kindOptions = [
  { value: 'allocated_child', label: 'Own budget (allocated)' },
  { value: 'shared_child', label: "Team key's budget (shared)" },
];

export function PolicyForm({
  policy,
  source,
}: {
  policy: MemberKeyPolicy;
  source: 'environment' | 'workbench';
}) {
  const update = useUpdatePolicy();
  const [kind, setKind] = useState(policy.kind);
  const [limit, setLimit] = useState(policy.limit_usd === null ? '' : String(policy.limit_usd));
  const [period, setPeriod] = useState<LimitReset>(policy.limit_reset);
  const [models, setModels] = useState(policy.allowed_models.join(', '));
  const [limitError, setLimitError] = useState<string | undefined>();

  function save(event: FormEvent) {
    event.preventDefault();
    const amount = Number(limit);
    if (
      kind === 'allocated_child' &&
      (limit.trim() === '' || !Number.isFinite(amount) || amount < 0)
    ) {
      setLimitError('Enter a budget in USD, 0 or more.');
      return;
    }
    setLimitError(undefined);
    update.mutate({
      kind,
      limit_usd: kind === 'allocated_child' ? amount : null,
      limit_reset: period,
      allowed_models: parseModels(models),
    });
  }

  return (
    <section
      aria-labelledby="policy-heading"
      className="flex flex-col gap-2 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800"
    >
      <h2 id="policy-heading" className="text-base font-semibold">
        Policy for new keys
      </h2>
      <p className="text-sm text-zinc-700 dark:text-zinc-300">
        The key a person gets at their first sign-in, unless their group has a policy in{' '}
        <code className="font-mono">WORKBENCH_MEMBER_POLICY_FILE</code>.{' '}
        {source === 'environment'
          ? 'Now from WORKBENCH_MEMBER_KEY_*.'
          : 'Set here; it replaces WORKBENCH_MEMBER_KEY_*.'}
      </p>
      <form
        aria-label="Policy for new keys"
        onSubmit={save}
        className="flex flex-wrap items-end gap-3"
        noValidate
      >
        <SelectField
          label="Kind"
          value={kind}
          options={kindOptions}
          onChange={(value) => setKind(value as MemberKeyPolicy['kind'])}
          className="w-56"
        />
        {kind === 'allocated_child' && (
          <TextField
            label="Budget (USD)"
            inputMode="decimal"
            value={limit}
            onChange={(event) => setLimit(event.target.value)}
            error={limitError}
            className="w-32"
          />
        )}
        <SelectField
          label="Period"
          value={period}
          options={periodOptions}
          onChange={(value) => setPeriod(value as LimitReset)}
          className="w-36"
        />
        <TextField
          label="Models"
          hint="Ids or patterns such as anthropic/*; empty: all models."
          value={models}
          onChange={(event) => setModels(event.target.value)}
          className="min-w-56 flex-1"
        />
        <Button type="submit" variant="primary" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save policy'}
        </Button>
      </form>
      {update.isSuccess && (
        <p role="status" className="text-sm">
          Saved: new keys follow it.
        </p>
      )}
      {update.isError && <ErrorPanel what="Saving the policy" error={update.error} />}
    </section>
  );
}
