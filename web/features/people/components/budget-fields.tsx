/**
 * The fields a key's budget takes, for a person's key and for the policy of new keys: budget in
 * USD (not for a shared child), period, models; and their reading, with the budget checked.
 */
import { useState } from 'react';
import type { LimitReset } from '../../../../contract/workbench-people';
import { SelectField } from '../../../components/select-field';
import { TextField } from '../../../components/text-field';
import { parseModels, periodOptions } from '../person-figures';

export interface BudgetValues {
  limit_usd: number | null;
  limit_reset: LimitReset;
  allowed_models: string[];
}

export function useBudgetFields(initial: BudgetValues) {
  const [limit, setLimit] = useState(initial.limit_usd === null ? '' : String(initial.limit_usd));
  const [period, setPeriod] = useState<LimitReset>(initial.limit_reset);
  const [models, setModels] = useState(initial.allowed_models.join(', '));
  const [limitError, setLimitError] = useState<string | undefined>();
  /** The values, or null (and the budget's error shown) when the budget is not a USD amount. */
  const read = (withBudget: boolean): BudgetValues | null => {
    const amount = Number(limit);
    if (withBudget && (limit.trim() === '' || !Number.isFinite(amount) || amount < 0)) {
      setLimitError('Enter a budget in USD, 0 or more.');
      return null;
    }
    setLimitError(undefined);
    return {
      limit_usd: withBudget ? amount : null,
      limit_reset: period,
      allowed_models: parseModels(models),
    };
  };
  return { limit, setLimit, period, setPeriod, models, setModels, limitError, read };
}

export function BudgetFields({
  fields,
  withBudget,
}: {
  fields: ReturnType<typeof useBudgetFields>;
  withBudget: boolean;
}) {
  return (
    <>
      {withBudget && (
        <TextField
          label="Budget (USD)"
          inputMode="decimal"
          value={fields.limit}
          onChange={(event) => fields.setLimit(event.target.value)}
          error={fields.limitError}
          className="w-32"
        />
      )}
      <SelectField
        label="Period"
        value={fields.period}
        options={periodOptions}
        onChange={(value) => fields.setPeriod(value as LimitReset)}
        className="w-36"
      />
      <TextField
        label="Models"
        hint="Ids or patterns such as anthropic/*; empty: all models."
        value={fields.models}
        onChange={(event) => fields.setModels(event.target.value)}
        className="min-w-56 flex-1"
      />
    </>
  );
}
