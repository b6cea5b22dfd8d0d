/** An admin's change to one person's key: budget, period and models, saved together. */
import { useState, type FormEvent } from 'react';
import type { LimitReset, Person } from '../../../../contract/workbench-people';
import { Button } from '../../../components/button';
import { ErrorPanel } from '../../../components/error-panel';
import { SelectField } from '../../../components/select-field';
import { TextField } from '../../../components/text-field';
import { useUpdatePerson } from '../api/update-person';
import { parseModels, periodOptions } from '../person-figures';

export function PersonEditor({ person, onDone }: { person: Person; onDone(): void }) {
  const key = person.key;
  const update = useUpdatePerson();
  const [limit, setLimit] = useState(key?.limit_usd === null ? '' : String(key?.limit_usd ?? ''));
  const [period, setPeriod] = useState<LimitReset>(key?.limit_reset ?? 'none');
  const [models, setModels] = useState((key?.allowed_models ?? []).join(', '));
  const [limitError, setLimitError] = useState<string | undefined>();

  function save(event: FormEvent) {
    event.preventDefault();
    const amount = Number(limit);
    const shared = key?.limit_usd === null;
    if (!shared && (limit.trim() === '' || !Number.isFinite(amount) || amount < 0)) {
      setLimitError('Enter a budget in USD, 0 or more.');
      return;
    }
    setLimitError(undefined);
    update.mutate(
      {
        id: person.id,
        change: {
          ...(shared ? {} : { limit_usd: amount }),
          limit_reset: period,
          allowed_models: parseModels(models),
        },
      },
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
      {key?.limit_usd !== null && (
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
