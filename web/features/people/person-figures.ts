/** How a person's key reads in words: budget per period, models, last request. */
import type { LimitReset, PersonKey } from '../../../contract/workbench-people';
import { formatDateTime, formatUsd } from '../../lib/format';

export const periodLabels: Record<LimitReset, string> = {
  none: 'Whole life',
  daily: 'Daily',
  weekly: 'Weekly',
  monthly: 'Monthly',
};

/** The period choices of a budget, for a select. */
export const periodOptions = (Object.keys(periodLabels) as LimitReset[]).map((value) => ({
  value,
  label: periodLabels[value],
}));

/** "$1.20 of $10.00 this month", or the shared child's word. */
export function spendText(key: PersonKey): string {
  if (key.limit_usd === null) return `${formatUsd(key.consumption_usd)} (spends the team key)`;
  const period = key.limit_reset === 'none' ? '' : ` this ${periodNoun[key.limit_reset]}`;
  return `${formatUsd(key.consumption_usd)} of ${formatUsd(key.limit_usd)}${period}`;
}

const periodNoun: Record<Exclude<LimitReset, 'none'>, string> = {
  daily: 'day',
  weekly: 'week',
  monthly: 'month',
};

export function modelsText(models: string[]): string {
  return models.length === 0 ? 'All models' : models.join(', ');
}

/** When the budget renews, or nothing for a whole-life budget. */
export function resetsText(key: PersonKey): string | null {
  if (key.limit_reset === 'none' || key.resets_at === null) return null;
  return `renews ${formatDateTime(key.resets_at, 'seconds')}`;
}

/** The models field's text as the list the BFF takes: commas or spaces between patterns. */
export function parseModels(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
