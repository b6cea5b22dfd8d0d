/**
 * Whether the key can afford a request's worst case, as the gateway's admission reckons it
 * (docs/keys-and-money.md): prompt tokens × prompt price + `max_tokens` (or the model's output
 * limit) × completion price, against what the key has left plus its grace. The balance lags
 * recent charges, so this can only miss a shortfall, never invent one from stale figures.
 */
import type { BalanceView, CatalogModel } from '../../../contract/workbench-api';

export interface Shortfall {
  worstCaseUsd: number;
  availableUsd: number;
  /** The most output tokens the key can pay for after the prompt (0 when not even that). */
  affordableOutputTokens: number;
  /** A round `max_tokens` at or under that, to offer; null when not even one token fits. */
  suggestedMaxTokens: number | null;
}

/** 329 → 300, 1,480 → 1,400, 47 → 40, 7 → 7: a round figure at or under `tokens`. */
export function roundDownTokens(tokens: number): number {
  if (tokens < 10) return tokens;
  const step =
    tokens < 100 ? 10 : tokens < 1_000 ? 100 : 10 ** (Math.floor(Math.log10(tokens)) - 1);
  return Math.floor(tokens / step) * step;
}

export function worstCaseShortfall(input: {
  balance: BalanceView['balance'];
  model: CatalogModel;
  promptTokens: number;
  maxTokens: number | null;
}): Shortfall | null {
  const promptPrice = Number(input.model.prompt_price);
  const completionPrice = Number(input.model.completion_price);
  if (!Number.isFinite(promptPrice) || !Number.isFinite(completionPrice)) return null;
  const outputTokens = input.maxTokens ?? input.model.max_completion_tokens;
  if (outputTokens === null) return null;
  const availableUsd = input.balance.remaining_usd + input.balance.grace_usd;
  const promptUsd = input.promptTokens * promptPrice;
  const worstCaseUsd = promptUsd + outputTokens * completionPrice;
  if (worstCaseUsd <= availableUsd) return null;
  const affordableOutputTokens =
    completionPrice > 0 ? Math.max(0, Math.floor((availableUsd - promptUsd) / completionPrice)) : 0;
  return {
    worstCaseUsd,
    availableUsd,
    affordableOutputTokens,
    suggestedMaxTokens: affordableOutputTokens > 0 ? roundDownTokens(affordableOutputTokens) : null,
  };
}
