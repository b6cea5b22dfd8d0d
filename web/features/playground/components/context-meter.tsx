/**
 * How much of the model's context the prompt would take, before it is sent: the gateway's own
 * count once the typing pauses (use-prompt-token-count.ts), else an estimate from the text (about
 * four characters a token), marked "≈" and "(estimate)".
 */
import { classNames } from '../../../components/class-names';
import { formatContextLength } from '../../../lib/format';

export function ContextMeter({
  tokens,
  counted,
  contextLength,
}: {
  /** The prompt's tokens (system prompt, conversation and draft). */
  tokens: number;
  /** Whether the gateway counted them; otherwise they are the estimate. */
  counted: boolean;
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
      title={
        counted
          ? 'Counted by the gateway with the model’s tokenizer.'
          : 'An estimate at about 4 characters a token; images are not counted. The gateway counts once the typing pauses.'
      }
    >
      {known && (
        <meter
          aria-label={counted ? 'Context used' : 'Context used (estimate)'}
          min={0}
          max={contextLength}
          value={Math.min(tokens, contextLength)}
          high={contextLength * 0.9}
          optimum={0}
          className="h-2 w-16"
        />
      )}
      <span>
        {counted ? '' : '≈'}
        {tokens.toLocaleString('en-US')}
        {known ? ` / ${formatContextLength(contextLength)}` : ''} prompt tokens
        {counted ? '' : ' (estimate)'}
        {over ? ': more than the model’s context' : ''}
      </span>
    </span>
  );
}
