/**
 * Finds one request by its trace id (the cf-ray a client, a log or the playground shows). The id
 * lives in the URL (`id=`), so a link can open a request's detail; a malformed id is named here
 * and never sent.
 */
import { useState, type FormEvent } from 'react';
import { traceIdSchema } from '../../../../contract/workbench-api';
import { Button } from '../../../components/button';

export interface TraceSearchProps {
  traceId: string | null;
  onSearch(traceId: string | null): void;
}

export function TraceSearch({ traceId, onSearch }: TraceSearchProps) {
  const [text, setText] = useState(traceId ?? '');
  const [error, setError] = useState<string | null>(null);
  // A new id from the URL (a link, Back) replaces what was typed.
  const [shown, setShown] = useState(traceId);
  if (shown !== traceId) {
    setShown(traceId);
    setText(traceId ?? '');
    setError(null);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const value = text.trim();
    if (value === '') {
      setError(null);
      onSearch(null);
      return;
    }
    const parsed = traceIdSchema.safeParse(value);
    if (!parsed.success) {
      setError('A trace id is 16 hexadecimal digits, a dash and 3 capitals: 0123456789abcdef-AMS.');
      return;
    }
    setError(null);
    onSearch(parsed.data);
  }

  return (
    <form role="search" aria-label="Find a request" onSubmit={submit} className="flex flex-col">
      <div className="flex items-end gap-1">
        <label className="flex flex-col gap-0.5 text-xs font-medium text-zinc-600 dark:text-zinc-400">
          Trace id (cf-ray)
          <input
            type="search"
            value={text}
            placeholder="0123456789abcdef-AMS"
            spellCheck={false}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? 'trace-search-error' : undefined}
            onChange={(event) => setText(event.target.value)}
            className="h-8 w-52 rounded-md border border-zinc-300 bg-white px-2 font-mono text-sm placeholder:text-zinc-500 dark:border-zinc-700 dark:bg-zinc-900 dark:[color-scheme:dark]"
          />
        </label>
        <Button type="submit">Find</Button>
      </div>
      {error && (
        <p
          id="trace-search-error"
          className="mt-1 text-xs font-medium text-red-700 dark:text-red-300"
        >
          {error}
        </p>
      )}
    </form>
  );
}
