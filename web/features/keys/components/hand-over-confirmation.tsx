import { useId } from 'react';

/** The words a person ticks to hand a key over; the refusal to go on without it quotes them. */
export const handOverConfirmationText = 'Show the key once; the workbench keeps no copy';

/**
 * The explicit confirmation every hand-over takes (a new key or a rotated one), with the error
 * shown when it is missing.
 */
export function HandOverConfirmation({
  confirmed,
  error,
  onConfirm,
}: {
  confirmed: boolean;
  error: string | undefined;
  onConfirm(confirmed: boolean): void;
}) {
  const errorId = `${useId()}-error`;
  return (
    <>
      <label className="mt-1 flex cursor-pointer items-start gap-2 text-sm">
        <input
          type="checkbox"
          checked={confirmed}
          onChange={(event) => onConfirm(event.target.checked)}
          aria-invalid={error !== undefined}
          aria-describedby={error !== undefined ? errorId : undefined}
          className="mt-0.5 accent-sky-700 dark:accent-sky-400"
        />
        {handOverConfirmationText}
      </label>
      {error !== undefined && (
        <p id={errorId} className="text-xs text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </>
  );
}
