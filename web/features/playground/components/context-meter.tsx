/**
 * How much of the model's context the prompt would take, before it is sent: an estimate from the
 * text (about four characters a token), marked "≈", since only the model's tokenizer knows.
 */
import { classNames } from '../../../components/class-names';
import { formatContextLength } from '../../../lib/format';

export function ContextMeter({
  tokens,
  contextLength,
}: {
  /** The prompt's estimated tokens (system prompt, conversation and draft). */
  tokens: number;
  /** The model's context window in tokens; null when the catalog does not say. */
  contextLength: number | null;
}) {
  const known = contextLength !== null && contextLength > 0;
  const over = known && tokens > contextLength;
  return (
    <span
      className={classNames(
        'flex items-center gap-1.5 text-xs tabular-nums',
        over ? 'text-red-700 dark:text-red-300' : 'text-zinc-600 dark:text-zinc-400',
      )}
      title="An estimate at about 4 characters a token; images are not counted. The model's tokenizer decides."
    >
      {known && (
        <meter
          aria-label="Context used (estimate)"
          min={0}
          max={contextLength}
          value={Math.min(tokens, contextLength)}
          high={contextLength * 0.9}
          optimum={0}
          className="h-2 w-16"
        />
      )}
      <span>
        ≈{tokens.toLocaleString('en-US')}
        {known ? ` / ${formatContextLength(contextLength)}` : ''} prompt tokens (estimate)
        {over ? ': more than the model’s context' : ''}
      </span>
    </span>
  );
}
