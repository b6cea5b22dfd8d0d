/**
 * Tool definitions as JSON (the chat-completion `tools` array), for models whose catalog entry
 * lists `tools`. The JSON is checked as it is typed.
 */
import { useId } from 'react';
import { Button } from '../../../components/button';
import { exampleToolsText, parseToolsText } from '../build-request';

export function ToolsEditor({
  text,
  onChange,
  supported,
  modelId,
  inCatalog,
}: {
  text: string;
  onChange(text: string): void;
  supported: boolean;
  modelId: string;
  /** False for a model the catalog does not list: its tools support is unknown, not absent. */
  inCatalog: boolean;
}) {
  const id = useId();
  const parsed = parseToolsText(text);
  return (
    <section aria-labelledby={`${id}-heading`} className="flex flex-col gap-1.5">
      <div className="flex items-center justify-between gap-2">
        <h2 id={`${id}-heading`} className="text-sm font-semibold">
          Tools
        </h2>
        {supported && text.trim() === '' && (
          <Button size="small" variant="ghost" onClick={() => onChange(exampleToolsText)}>
            Insert example
          </Button>
        )}
      </div>
      <label htmlFor={id} className="text-xs text-zinc-600 dark:text-zinc-400">
        Tool definitions (JSON array)
      </label>
      <textarea
        id={id}
        rows={supported && text !== '' ? 10 : 3}
        value={text}
        disabled={!supported}
        spellCheck={false}
        placeholder={
          supported ? '[{"type": "function", "function": {"name": …, "parameters": {…}}}]' : ''
        }
        aria-describedby={`${id}-note`}
        aria-invalid={supported && parsed.problem !== null}
        onChange={(event) => onChange(event.target.value)}
        className="w-full rounded-md border border-zinc-300 bg-white p-1.5 font-mono text-xs disabled:cursor-not-allowed disabled:bg-zinc-100 dark:border-zinc-700 dark:bg-zinc-900 dark:disabled:bg-zinc-800"
      />
      <p id={`${id}-note`} className="text-xs text-zinc-500 dark:text-zinc-400">
        {!supported ? (
          // Greyed with a quiet reason: a model without tools is a fact, not a warning.
          <span className="italic">
            {modelId
              ? `Disabled: ${modelId} does not list “tools” in its supported parameters.`
              : 'Choose a model first.'}
          </span>
        ) : parsed.problem ? (
          <span role="alert" className="text-red-700 dark:text-red-300">
            {parsed.problem}
          </span>
        ) : parsed.tools && parsed.tools.length > 0 ? (
          `${parsed.tools.length} tool${parsed.tools.length === 1 ? '' : 's'}: ${parsed.tools.map((tool) => tool.function.name).join(', ')}${
            inCatalog
              ? ''
              : ` · ${modelId} is not in the catalog, so whether it takes tools is unknown: they are sent, and the gateway decides.`
          }`
        ) : (
          'No tools: the model answers in text.'
        )}
      </p>
    </section>
  );
}
