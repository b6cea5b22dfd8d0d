/**
 * What a reply cost and how fast it came: time to first token, total time, tokens per second,
 * tokens and USD. The gateway's `usage.cost` is the truth; without it the cost is estimated from
 * the catalog's prices and labelled so, because a made-up number must never pass for a bill.
 */
import type { CatalogModel } from '../../../contract/workbench-api';
import { contentText } from './code-export/shared';
import type { RunRecord } from './playground-types';

export interface RunMetrics {
  firstTokenMs: number | null;
  totalMs: number | null;
  tokensPerSecond: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  /** True when the token counts are guessed from the text (no usage arrived, e.g. after Stop). */
  tokensEstimated: boolean;
  costUsd: number | null;
  /** True when the cost is computed from catalog prices rather than reported by the gateway. */
  costEstimated: boolean;
  finishReason: string | null;
  /**
   * True when the gateway refused the request (a 4xx before any output): nothing ran, so no
   * tokens were used and nothing was charged. Estimating a cost for it would invent a bill.
   */
  refused: boolean;
}

/** Below this much generation time a tokens-per-second figure is noise, not speed. */
export const minimumMeasurableMs = 100;

/** A rough token count for text without usage: about four characters per token in English. */
export function estimateTokens(text: string): number {
  return text === '' ? 0 : Math.max(1, Math.round(text.length / 4));
}

function pricePerToken(price: string | null | undefined): number | null {
  if (price === null || price === undefined) return null;
  const value = Number(price);
  // A negative catalog price means "varies by request": no estimate can be made from it.
  return Number.isFinite(value) && value >= 0 ? value : null;
}

/** Cost from catalog prices; null when a needed price is unknown. */
export function estimateCostUsd(
  model: CatalogModel | undefined,
  promptTokens: number,
  completionTokens: number,
): number | null {
  const promptPrice = pricePerToken(model?.prompt_price);
  const completionPrice = pricePerToken(model?.completion_price);
  if (promptPrice === null || completionPrice === null) return null;
  return promptPrice * promptTokens + completionPrice * completionTokens;
}

/**
 * Metrics for one run. `now` (milliseconds since the request was sent) gives live values while
 * the reply still streams.
 */
export function computeRunMetrics(
  run: RunRecord,
  replyText: string,
  model: CatalogModel | undefined,
  elapsedMs?: number,
): RunMetrics {
  const totalMs = run.totalMs ?? (run.status === 'streaming' ? (elapsedMs ?? null) : null);
  const usage = run.usage;
  const refusedStatus = run.error ? (run.error.upstreamStatus ?? run.error.status) : null;
  const refused =
    run.status === 'error' &&
    usage === null &&
    replyText === '' &&
    run.firstTokenMs === null &&
    refusedStatus !== null &&
    refusedStatus >= 400 &&
    refusedStatus < 500;
  if (refused) {
    return {
      firstTokenMs: null,
      totalMs,
      tokensPerSecond: null,
      promptTokens: null,
      completionTokens: null,
      tokensEstimated: false,
      costUsd: 0,
      costEstimated: false,
      finishReason: run.finishReason,
      refused: true,
    };
  }
  const tokensEstimated = usage === null;
  const completionTokens = usage ? usage.completion_tokens : replyText !== '' ? estimateTokens(replyText) : null;
  const promptText = run.request.request.messages.map((message) => contentText(message.content)).join('\n');
  const promptTokens = usage ? usage.prompt_tokens : estimateTokens(promptText);

  let tokensPerSecond: number | null = null;
  if (completionTokens !== null && completionTokens > 0 && totalMs !== null) {
    // Streaming speed is measured after the first token: the wait before it is latency, not speed.
    const generationMs = run.streamed && run.firstTokenMs !== null ? totalMs - run.firstTokenMs : totalMs;
    // A reply that arrives in one piece (a tool call, a short answer) has no measurable speed.
    if (generationMs >= minimumMeasurableMs) tokensPerSecond = (completionTokens * 1000) / generationMs;
  }

  let costUsd: number | null = null;
  let costEstimated = false;
  if (usage && typeof usage.cost === 'number') {
    costUsd = usage.cost;
  } else if (completionTokens !== null || promptTokens !== null) {
    costUsd = estimateCostUsd(model, promptTokens ?? 0, completionTokens ?? 0);
    costEstimated = costUsd !== null;
  }

  return {
    firstTokenMs: run.firstTokenMs,
    totalMs,
    tokensPerSecond,
    promptTokens,
    completionTokens,
    tokensEstimated,
    costUsd,
    costEstimated,
    finishReason: run.finishReason,
    refused: false,
  };
}

/** Tokens per second for people: one decimal under 100, whole numbers above. */
export function formatTokensPerSecond(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return '—';
  return value < 100 ? `${value.toFixed(1)} tok/s` : `${Math.round(value)} tok/s`;
}

/**
 * The gateway's attempt count in words, or null for a first-try answer: "2 attempts (1
 * fallback/retry)". The headers do not say whether a retry went to the same provider or the
 * next one, so neither is claimed.
 */
export function describeAttempts(attempts: number | null | undefined): string | null {
  if (attempts === null || attempts === undefined || attempts <= 1) return null;
  const extra = attempts - 1;
  return `${attempts} attempts (${extra} ${extra === 1 ? 'fallback/retry' : 'fallbacks/retries'})`;
}
