/**
 * Answers the tool calls of the last reply: one result per call, then the conversation goes on
 * with them as `tool` messages.
 */
import { useId, useState } from 'react';
import { Button } from '../../../components/button';
import type { ToolCall } from '../playground-types';

function ToolResultField({
  call,
  value,
  onChange,
}: {
  call: ToolCall;
  value: string;
  onChange(value: string): void;
}) {
  const id = useId();
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs">
        Result for <code className="font-mono font-semibold">{call.function.name}</code>{' '}
        <span className="font-mono text-zinc-500 dark:text-zinc-400">({call.id})</span>
      </label>
      <pre
        tabIndex={0}
        className="overflow-x-auto font-mono text-xs text-zinc-600 dark:text-zinc-400"
      >
        {call.function.arguments || '{}'}
      </pre>
      <textarea
        id={id}
        rows={2}
        value={value}
        placeholder='e.g. {"temperature_c": 21}'
        onChange={(event) => onChange(event.target.value)}
        className="w-full rounded-md border border-zinc-300 bg-white p-1.5 font-mono text-sm dark:border-zinc-700 dark:bg-zinc-950"
      />
    </div>
  );
}

export function ToolResultsForm({
  toolCalls,
  disabled,
  onSubmit,
}: {
  toolCalls: ToolCall[];
  disabled: boolean;
  onSubmit(results: { call: ToolCall; content: string }[]): void;
}) {
  const headingId = useId();
  const [results, setResults] = useState<Record<string, string>>({});
  const complete = toolCalls.every((call) => (results[call.id] ?? '').trim() !== '');
  return (
    <section
      aria-labelledby={headingId}
      className="flex flex-col gap-2 rounded-lg border border-violet-300 bg-violet-50/50 p-3 dark:border-violet-800 dark:bg-violet-950/20"
    >
      <h3 id={headingId} className="text-sm font-semibold">
        Answer the tool calls
      </h3>
      {toolCalls.map((call) => (
        <ToolResultField
          key={call.id}
          call={call}
          value={results[call.id] ?? ''}
          onChange={(value) => setResults((current) => ({ ...current, [call.id]: value }))}
        />
      ))}
      <div>
        <Button
          variant="primary"
          size="small"
          disabled={disabled || !complete}
          onClick={() =>
            onSubmit(toolCalls.map((call) => ({ call, content: results[call.id] ?? '' })))
          }
        >
          Submit tool results
        </Button>
      </div>
    </section>
  );
}
