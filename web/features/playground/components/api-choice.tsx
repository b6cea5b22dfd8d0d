/**
 * Which gateway route the playground sends to: chat completions, or the Responses form
 * (docs/responses.md). A radio group named `API`, so tests and screen readers find it.
 */
import type { InferenceApi } from '../../../../contract/workbench-api';

const choices: { value: InferenceApi; label: string; path: string }[] = [
  { value: 'chat_completions', label: 'Chat completions', path: '/v1/chat/completions' },
  { value: 'responses', label: 'Responses', path: '/v1/responses' },
];

export function ApiChoice({
  value,
  onChange,
  disabled,
}: {
  value: InferenceApi;
  onChange(api: InferenceApi): void;
  disabled?: boolean;
}) {
  return (
    <div role="radiogroup" aria-label="API" className="flex flex-col gap-1">
      <span aria-hidden="true" className="text-xs font-medium text-zinc-600 dark:text-zinc-400">
        API
      </span>
      <div className="flex h-9 items-center rounded-md border border-zinc-300 p-0.5 dark:border-zinc-700">
        {choices.map((choice) => (
          <label
            key={choice.value}
            title={`POST ${choice.path}`}
            className="flex h-full cursor-pointer items-center rounded px-2.5 text-sm has-[:checked]:bg-zinc-900 has-[:checked]:text-white has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-sky-600 dark:has-[:checked]:bg-zinc-100 dark:has-[:checked]:text-zinc-900"
          >
            <input
              type="radio"
              name="playground-api"
              value={choice.value}
              checked={value === choice.value}
              disabled={disabled}
              onChange={() => onChange(choice.value)}
              className="sr-only"
            />
            {choice.label}
          </label>
        ))}
      </div>
    </div>
  );
}

/** The `?api=` value as a choice: anything but `responses` is chat completions. */
export function apiFromParam(value: string | null): InferenceApi {
  return value === 'responses' ? 'responses' : 'chat_completions';
}
