/**
 * The Activity page's filters: a range (presets or dates, UTC), a model, an outcome, for an
 * account profile the key the requests were made with, and a search by trace id.
 */
import type { GenerationOutcome } from '../../../../contract/workbench-api';
import { Button } from '../../../components/button';
import { classNames } from '../../../components/class-names';
import { SelectField, type SelectOption } from '../../../components/select-field';
import { dateBounds, rangePresets, yesterdayOf, type ActivityFilters } from '../activity-filters';
import { TraceSearch } from './trace-search';

const allModels = 'all';
const allOutcomes = 'all';
// Not a key id (they are letters, digits, `_` and `-`), so no key can be mistaken for it.
const allKeys = '*';

export interface ActivityToolbarProps {
  filters: ActivityFilters;
  nowMs: number;
  /** Models to offer, the most spent on first. */
  models: string[];
  /** An account profile's child keys to filter by (value: key id); null hides the filter. */
  keys: SelectOption[] | null;
  onPreset(days: number): void;
  onDates(change: { from?: string; to?: string }): void;
  onModel(model: string | null): void;
  onOutcome(outcome: GenerationOutcome | null): void;
  onKey(keyId: string | null): void;
  onTraceId(traceId: string | null): void;
  onClear(): void;
}

const presetClass = (active: boolean) =>
  classNames(
    'inline-flex h-8 items-center rounded-md border px-2 text-sm font-medium whitespace-nowrap transition-colors sm:px-3',
    active
      ? 'border-zinc-900 bg-zinc-900 text-white dark:border-zinc-100 dark:bg-zinc-100 dark:text-zinc-900'
      : 'border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800',
  );

const dateInputClass =
  'h-8 rounded-md border border-zinc-300 bg-white px-2 text-sm dark:border-zinc-700 dark:bg-zinc-900 dark:[color-scheme:dark]';

export function ActivityToolbar({
  filters,
  nowMs,
  models,
  keys,
  onPreset,
  onDates,
  onModel,
  onOutcome,
  onKey,
  onTraceId,
  onClear,
}: ActivityToolbarProps) {
  const bounds = dateBounds(nowMs);
  const yesterday = yesterdayOf(nowMs);
  const yesterdayChosen =
    filters.presetDays === null && filters.from === yesterday && filters.to === yesterday;
  const modelOptions = [
    { value: allModels, label: 'All models' },
    ...[...new Set([...(filters.model ? [filters.model] : []), ...models])].map((model) => ({
      value: model,
      label: model,
    })),
  ];
  const filtered =
    filters.model !== null ||
    filters.outcome !== null ||
    filters.traceId !== null ||
    (keys !== null && filters.keyId !== null);
  const keyOptions = keys && [
    { value: allKeys, label: 'All keys' },
    ...keys,
    // A key id from the URL that is not (or no longer) listed stays choosable as itself.
    ...(filters.keyId && !keys.some((key) => key.value === filters.keyId)
      ? [{ value: filters.keyId, label: filters.keyId }]
      : []),
  ];
  return (
    <div className="flex flex-wrap items-end gap-x-4 gap-y-3">
      <div className="flex flex-col gap-0.5">
        <span
          id="range-presets-label"
          className="text-xs font-medium text-zinc-600 dark:text-zinc-400"
        >
          Range (UTC days)
        </span>
        {/* Wraps rather than overflow on the narrowest phones (320 px). */}
        <div role="group" aria-labelledby="range-presets-label" className="flex flex-wrap gap-1">
          {rangePresets.map((preset) => {
            const active = filters.presetDays === preset.days;
            return (
              <button
                key={preset.days}
                type="button"
                aria-pressed={active}
                onClick={() => onPreset(preset.days)}
                className={presetClass(active)}
              >
                {preset.label}
              </button>
            );
          })}
          <button
            type="button"
            aria-pressed={yesterdayChosen}
            onClick={() => onDates({ from: yesterday, to: yesterday })}
            className={presetClass(yesterdayChosen)}
          >
            Yesterday
          </button>
        </div>
      </div>
      <div className="flex items-end gap-2">
        <label className="flex flex-col gap-0.5 text-xs font-medium text-zinc-600 dark:text-zinc-400">
          From
          <input
            type="date"
            className={dateInputClass}
            min={bounds.min}
            max={filters.to}
            value={filters.from}
            onChange={(event) => event.target.value && onDates({ from: event.target.value })}
          />
        </label>
        <label className="flex flex-col gap-0.5 text-xs font-medium text-zinc-600 dark:text-zinc-400">
          To
          <input
            type="date"
            className={dateInputClass}
            min={filters.from}
            max={bounds.max}
            value={filters.to}
            onChange={(event) => event.target.value && onDates({ to: event.target.value })}
          />
        </label>
      </div>
      <SelectField
        label="Model"
        className="w-56 max-w-full"
        value={filters.model ?? allModels}
        options={modelOptions}
        onChange={(value) => onModel(value === allModels ? null : value)}
      />
      <SelectField
        label="Outcome"
        className="w-40"
        value={filters.outcome ?? allOutcomes}
        options={[
          { value: allOutcomes, label: 'All outcomes' },
          { value: 'completed', label: 'Completed' },
          { value: 'ended_early', label: 'Ended early' },
        ]}
        onChange={(value) => onOutcome(value === allOutcomes ? null : (value as GenerationOutcome))}
      />
      {keyOptions && (
        // Not "Key": the page header's profile picker is named that.
        <SelectField
          label="Made with"
          className="w-56 max-w-full"
          value={filters.keyId ?? allKeys}
          options={keyOptions}
          onChange={(value) => onKey(value === allKeys ? null : value)}
        />
      )}
      <TraceSearch traceId={filters.traceId} onSearch={onTraceId} />
      {filtered && (
        <Button variant="ghost" onClick={onClear}>
          Clear filters
        </Button>
      )}
    </div>
  );
}
