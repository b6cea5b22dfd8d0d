import { Select } from 'radix-ui';
import { useId } from 'react';
import { classNames } from './class-names';

export interface SelectOption {
  value: string;
  label: string;
}

/**
 * A labelled radix Select. Radix forbids an empty value, so "no choice" is an ordinary option
 * (e.g. `all`) that the caller maps.
 */
export function SelectField({
  label,
  value,
  options,
  onChange,
  hideLabel = false,
  className,
}: {
  label: string;
  value: string;
  options: SelectOption[];
  onChange(value: string): void;
  hideLabel?: boolean;
  className?: string;
}) {
  const labelId = useId();
  return (
    <div className={classNames('flex min-w-0 flex-col gap-0.5', className)}>
      <span
        id={labelId}
        className={hideLabel ? 'sr-only' : 'text-xs font-medium text-zinc-600 dark:text-zinc-400'}
      >
        {label}
      </span>
      <Select.Root value={value} onValueChange={onChange}>
        <Select.Trigger
          aria-labelledby={labelId}
          className="inline-flex h-8 w-full min-w-0 items-center justify-between gap-2 rounded-md border border-zinc-300 bg-white px-2 text-left text-sm hover:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900 dark:hover:bg-zinc-800"
        >
          <span className="truncate">
            <Select.Value />
          </span>
          <Select.Icon aria-hidden="true" className="text-zinc-500">
            ▾
          </Select.Icon>
        </Select.Trigger>
        <Select.Portal>
          <Select.Content
            position="popper"
            sideOffset={4}
            className="z-50 max-h-[min(24rem,var(--radix-select-content-available-height))] min-w-[var(--radix-select-trigger-width)] overflow-hidden rounded-md border border-zinc-200 bg-white shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
          >
            <Select.ScrollUpButton className="flex justify-center py-0.5 text-zinc-500">
              ▴
            </Select.ScrollUpButton>
            <Select.Viewport className="p-1">
              {options.map((option) => (
                <Select.Item
                  key={option.value}
                  value={option.value}
                  className="cursor-default rounded px-2 py-1 text-sm outline-none select-none data-[highlighted]:bg-sky-100 data-[state=checked]:font-semibold dark:data-[highlighted]:bg-sky-900"
                >
                  <Select.ItemText>{option.label}</Select.ItemText>
                </Select.Item>
              ))}
            </Select.Viewport>
            <Select.ScrollDownButton className="flex justify-center py-0.5 text-zinc-500">
              ▾
            </Select.ScrollDownButton>
          </Select.Content>
        </Select.Portal>
      </Select.Root>
    </div>
  );
}
