/**
 * Compare mode in the URL's `?compare=`: present when Compare is ticked, its value the models
 * compared with (comma-separated, possibly none yet). A link or a reload brings the same columns
 * back.
 */
import { maximumCompareModels } from './conversation-state';

export interface CompareChoice {
  enabled: boolean;
  models: string[];
}

/** The parameter's value for the session's choice; null (no parameter) when not comparing. */
export function compareParamOf(choice: CompareChoice): string | null {
  return choice.enabled ? choice.models.join(',') : null;
}

/**
 * The choice a `?compare=` asks for, or null without one. Blank and repeated ids are dropped,
 * and no more models are kept than compare runs besides the chosen one.
 */
export function compareChoiceOf(param: string | null): CompareChoice | null {
  if (param === null) return null;
  const models = [
    ...new Set(
      param
        .split(',')
        .map((model) => model.trim())
        .filter((model) => model !== ''),
    ),
  ];
  return { enabled: true, models: models.slice(0, maximumCompareModels - 1) };
}
