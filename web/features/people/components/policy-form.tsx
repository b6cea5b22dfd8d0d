/**
 * The policy for people's new keys (those in no policy group): kind, budget, period, models. An
 * admin's choice is kept by the workbench over WORKBENCH_MEMBER_KEY_*; keys made before keep theirs.
 */
import { useState, type FormEvent } from 'react';
import type { MemberKeyPolicy } from '../../../../contract/workbench-people';
import { Button } from '../../../components/button';
import { ErrorPanel } from '../../../components/error-panel';
import { SelectField } from '../../../components/select-field';
import { useUpdatePolicy } from '../api/update-policy';
import { BudgetFields, useBudgetFields } from './budget-fields';

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
  const fields = useBudgetFields(policy);

  function save(event: FormEvent) {
    event.preventDefault();
    const values = fields.read(kind === 'allocated_child');
    if (values) update.mutate({ kind, ...values });
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
        <BudgetFields fields={fields} withBudget={kind === 'allocated_child'} />
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
