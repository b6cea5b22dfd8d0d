/** An admin's change to one person's key: budget, period and models, saved together. */
import type { FormEvent } from 'react';
import type { Person } from '../../../../contract/workbench-people';
import { Button } from '../../../components/button';
import { ErrorPanel } from '../../../components/error-panel';
import { useUpdatePerson } from '../api/update-person';
import { BudgetFields, useBudgetFields } from './budget-fields';

export function PersonEditor({ person, onDone }: { person: Person; onDone(): void }) {
  const key = person.key;
  const update = useUpdatePerson();
  // A shared child has no budget of its own: it spends the team key's.
  const withBudget = key?.limit_usd !== null;
  const fields = useBudgetFields({
    limit_usd: key?.limit_usd ?? null,
    limit_reset: key?.limit_reset ?? 'none',
    allowed_models: key?.allowed_models ?? [],
  });

  function save(event: FormEvent) {
    event.preventDefault();
    const values = fields.read(withBudget);
    if (!values) return;
    const { limit_usd: limit, ...rest } = values;
    update.mutate(
      { id: person.id, change: { ...(limit === null ? {} : { limit_usd: limit }), ...rest } },
      { onSuccess: onDone },
    );
  }

  const name = person.name ?? person.email ?? person.id;
  return (
    <form
      aria-label={`Change ${name}'s key`}
      onSubmit={save}
      className="flex flex-wrap items-end gap-3 py-2"
      noValidate
    >
      <BudgetFields fields={fields} withBudget={withBudget} />
      <div className="flex gap-2">
        <Button type="submit" variant="primary" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save'}
        </Button>
        <Button type="button" variant="secondary" onClick={onDone}>
          Cancel
        </Button>
      </div>
      {update.isError && (
        <div className="w-full">
          <ErrorPanel what={`Changing ${name}'s key`} error={update.error} />
        </div>
      )}
    </form>
  );
}
