import { useId } from 'react';
import { classNames } from '../../../components/class-names';
import type { ChildKeyKindChoice } from '../child-key-form';

const kinds: Array<{ value: ChildKeyKindChoice; label: string; explanation: string }> = [
  {
    value: 'allocated_child',
    label: 'Allocated',
    explanation: 'Its own limit, taken from this account’s balance.',
  },
  {
    value: 'shared_child',
    label: 'Shared',
    explanation: 'Spends this account’s balance; the account’s limit caps it.',
  },
];

/** The kind of a new child key, as two radio buttons with what each means. */
export function KindChoice({
  value,
  onChange,
}: {
  value: ChildKeyKindChoice;
  onChange(kind: ChildKeyKindChoice): void;
}) {
  const name = useId();
  return (
    <fieldset className="flex flex-col gap-1 text-sm">
      <legend className="mb-1 font-medium">Kind</legend>
      <div className="grid gap-2 sm:grid-cols-2">
        {kinds.map((kind) => (
          <label
            key={kind.value}
            className={classNames(
              'flex cursor-pointer gap-2 rounded-md border p-2',
              value === kind.value
                ? 'border-sky-600 bg-sky-50 dark:border-sky-400 dark:bg-sky-950/40'
                : 'border-zinc-300 dark:border-zinc-700',
            )}
          >
            <input
              type="radio"
              name={name}
              value={kind.value}
              checked={value === kind.value}
              onChange={() => onChange(kind.value)}
              // The name is the kind's word; what it means is its description.
              aria-label={kind.label}
              aria-describedby={`${name}-${kind.value}`}
              className="mt-0.5 accent-sky-700 dark:accent-sky-400"
            />
            <span className="flex flex-col">
              <span className="font-medium">{kind.label}</span>
              <span
                id={`${name}-${kind.value}`}
                className="text-xs text-zinc-700 dark:text-zinc-300"
              >
                {kind.explanation}
              </span>
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
