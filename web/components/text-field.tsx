import { useId, type InputHTMLAttributes, type ReactNode } from 'react';
import { classNames } from './class-names';

/**
 * A labelled input with an optional hint and an error. The error is announced with the field
 * (`aria-describedby`, `aria-invalid`), so a screen reader hears what to write instead.
 */
export function TextField({
  label,
  hint,
  error,
  className,
  ...input
}: {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | undefined;
} & Omit<InputHTMLAttributes<HTMLInputElement>, 'id'>) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ');
  return (
    <div className={classNames('flex min-w-0 flex-col gap-1 text-sm', className)}>
      <label htmlFor={id} className="font-medium">
        {label}
      </label>
      <input
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy || undefined}
        className={classNames(
          'h-8 rounded-md border bg-white px-2 text-sm dark:bg-zinc-900 dark:[color-scheme:dark]',
          error ? 'border-red-600 dark:border-red-400' : 'border-zinc-300 dark:border-zinc-700',
        )}
        {...input}
      />
      {hint && (
        <p id={hintId} className="text-xs text-zinc-600 dark:text-zinc-400">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} className="text-xs font-medium text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
    </div>
  );
}
