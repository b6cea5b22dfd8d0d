/**
 * A send held because the key cannot afford the request's worst case: what it would reserve,
 * what the key has, and the fix ("can afford ~329 output tokens: set max_tokens to 300?"), or
 * Send anyway for a person who knows the balance is about to change.
 */
import { Button } from '../../../components/button';
import { formatUsd } from '../../../lib/format';
import type { Shortfall } from '../affordability';

export function BudgetNotice({
  shortfall,
  onFit,
  onSendAnyway,
  onDismiss,
}: {
  shortfall: Shortfall;
  onFit(maxTokens: number): void;
  onSendAnyway(): void;
  onDismiss(): void;
}) {
  const suggested = shortfall.suggestedMaxTokens;
  return (
    <div
      role="alert"
      className="flex flex-col gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-100"
    >
      <p>
        <span className="font-semibold">Not sent yet:</span> the gateway reserves the worst case
        first, {formatUsd(shortfall.worstCaseUsd)}, and this key has about{' '}
        {formatUsd(shortfall.availableUsd)} left, so it would refuse the request.{' '}
        {suggested !== null
          ? `The key can afford ~${shortfall.affordableOutputTokens.toLocaleString('en-US')} output tokens: set max_tokens to ${suggested.toLocaleString('en-US')}?`
          : shortfall.availableUsd <= 0
            ? 'It has nothing left: recharge it (Keys).'
            : 'It cannot pay even for the prompt: shorten the conversation, or recharge the key (Keys).'}
      </p>
      <div className="flex flex-wrap gap-2">
        {suggested !== null && (
          <Button size="small" variant="primary" onClick={() => onFit(suggested)}>
            Set max_tokens to {suggested.toLocaleString('en-US')}
          </Button>
        )}
        <Button size="small" onClick={onSendAnyway}>
          Send anyway
        </Button>
        <Button size="small" variant="ghost" onClick={onDismiss}>
          Dismiss
        </Button>
      </div>
    </div>
  );
}
