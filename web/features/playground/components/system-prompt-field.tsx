/** The system prompt, sent first as a system message when it is not empty. */
import { useId } from 'react';

export function SystemPromptField({
  value,
  onChange,
}: {
  value: string;
  onChange(text: string): void;
}) {
  const id = useId();
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium text-zinc-600 dark:text-zinc-400">
        System prompt
      </label>
      <textarea
        id={id}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        rows={2}
        placeholder="Optional instructions sent first, as a system message"
        className="w-full resize-y rounded-md border border-zinc-300 bg-white p-2 text-sm dark:border-zinc-700 dark:bg-zinc-900"
      />
    </div>
  );
}
