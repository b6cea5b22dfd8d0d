/**
 * What a reply cost and how fast it came: time to first token, total time, tokens per second,
 * tokens and USD. The gateway's generation record is the truth (what the key was charged); the
 * usage the gateway sent with the reply comes next; without either, tokens and cost are
 * estimated from the text and the catalog's prices and labelled so, because a made-up number
 * must never pass for a bill. A request the gateway refused or never received cost nothing.
 */
import type { CatalogModel, ChatMessage, GenerationCharge } from '../../../contract/workbench-api';
import { contentText } from './code-export/shared';
import type { RunRecord } from './playground-types';

/**
 * Where the tokens and cost come from: the gateway's generation record (`charged`), the usage it
 * sent with the reply (`reported`), a guess from the text and catalog prices (`estimate`), or
 * nothing at all because the gateway refused the request (`refused`) or never got it
 * (`not_sent`).
 */
export type CostBasis = 'charged' | 'reported' | 'estimate' | 'refused' | 'not_sent';

export interface RunMetrics {
  firstTokenMs: number | null;
  totalMs: number | null;
  tokensPerSecond: number | null;
  /**
   * True when the speed is worked out from the text received (estimated tokens): before any
   * usage or record arrives, or for a broken-off answer whose record may undercount.
   */
  speedEstimated: boolean;
  promptTokens: number | null;
  completionTokens: number | null;
  /** True when the token counts are guessed from the text (no usage arrived, e.g. after Stop). */
  tokensEstimated: boolean;
  costUsd: number | null;
  /** True when the cost is computed from catalog prices rather than reported by the gateway. */
  costEstimated: boolean;
  basis: CostBasis;
  finishReason: string | null;
  /**
   * True when the gateway refused the request (a 4xx before any output): nothing ran, so no
   * tokens were used and nothing was charged. Estimating a cost for it would invent a bill.
   */
  refused: boolean;
}

/** BFF stages that mean the gateway never received the request (or the browser never sent it). */
const neverSentStages = new Set(['connect', 'first_byte', 'network', 'validation', 'profile']);

/**
 * True when the request never reached the gateway: the workbench could not connect to it (or
 * it did not start answering), the workbench server itself was unreachable, or the workbench
 * refused the request. Nothing can have been charged.
 */
export function neverSent(run: RunRecord): boolean {
  return (
    run.status === 'error' &&
    run.error !== null &&
    run.cfRay === null &&
    run.error.upstreamStatus === null &&
    run.firstTokenMs === null &&
    neverSentStages.has(run.error.stage)
  );
}

/** True when the gateway refused the request before running it (a 4xx before any output). */
export function refusedByGateway(run: RunRecord, replyText: string): boolean {
  const status = run.error ? (run.error.upstreamStatus ?? run.error.status) : null;
  return (
    run.status === 'error' &&
    run.usage === null &&
    replyText === '' &&
    run.firstTokenMs === null &&
    status !== null &&
    status >= 400 &&
    status < 500
  );
}

/**
 * The generation record to read for a run's charge, or null when there is none to read: the
 * reply still streams, the request was refused or never sent, or no trace id came back.
 */
export function chargeLookup(
  run: RunRecord,
  replyText: string,
): { profile: string; id: string } | null {
  if (run.status === 'streaming' || run.cfRay === null) return null;
  if (neverSent(run) || refusedByGateway(run, replyText)) return null;
  return { profile: run.request.profile, id: run.cfRay };
}

/** Below this much generation time a tokens-per-second figure is noise, not speed. */
export const minimumMeasurableMs = 100;

/** A rough token count for text without usage: about four characters per token in English. */
export function estimateTokens(text: string): number {
  return text === '' ? 0 : Math.max(1, Math.round(text.length / 4));
}

/** A rough token count of a prompt's text (images are not counted), by `estimateTokens`. */
export function estimatePromptTokens(messages: ChatMessage[]): number {
  return estimateTokens(messages.map((message) => contentText(message.content)).join('\n'));
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
 * Metrics for one run. `elapsedMs` (milliseconds since the request was sent) gives live values
 * while the reply still streams; `charge` is the run's generation record, once read.
 */
export function computeRunMetrics(
  run: RunRecord,
  replyText: string,
  model: CatalogModel | undefined,
  elapsedMs?: number,
  charge: GenerationCharge | null = null,
): RunMetrics {
  const totalMs = run.totalMs ?? (run.status === 'streaming' ? (elapsedMs ?? null) : null);
  const nothingCharged = neverSent(run)
    ? 'not_sent'
    : refusedByGateway(run, replyText)
      ? 'refused'
      : null;
  if (nothingCharged) {
    return {
      firstTokenMs: null,
      totalMs,
      tokensPerSecond: null,
      speedEstimated: false,
      promptTokens: null,
      completionTokens: null,
      tokensEstimated: false,
      costUsd: 0,
      costEstimated: false,
      basis: nothingCharged,
      finishReason: run.finishReason,
      refused: nothingCharged === 'refused',
    };
  }
  const usage = charge
    ? {
        prompt_tokens: charge.prompt_tokens,
        completion_tokens: charge.completion_tokens,
        cost: charge.cost_usd,
      }
    : run.usage;
  const tokensEstimated = usage === null;
  const completionTokens = usage
    ? usage.completion_tokens
    : replyText !== ''
      ? estimateTokens(replyText)
      : null;
  const promptTokens = usage
    ? usage.prompt_tokens
    : estimatePromptTokens(run.request.request.messages);

  // Once the record is read, the speed is that of the tokens shown beside it (after Stop too),
  // not of a guess from the text. Only a broken-off answer's record may count far less than
  // reached the page (the gateway lost the stream), so its speed stays the text's.
  const partialCharge =
    charge !== null &&
    charge.outcome === 'ended_early' &&
    run.status === 'error' &&
    replyText !== '';
  const speedTokens = partialCharge ? estimateTokens(replyText) : completionTokens;
  let tokensPerSecond: number | null = null;
  if (speedTokens !== null && speedTokens > 0 && totalMs !== null) {
    // Streaming speed is measured after the first token: the wait before it is latency, not speed.
    const generationMs =
      run.streamed && run.firstTokenMs !== null ? totalMs - run.firstTokenMs : totalMs;
    // A reply that arrives in one piece (a tool call, a short answer) has no measurable speed.
    if (generationMs >= minimumMeasurableMs) tokensPerSecond = (speedTokens * 1000) / generationMs;
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
    speedEstimated: tokensPerSecond !== null && (partialCharge || tokensEstimated),
    promptTokens,
    completionTokens,
    tokensEstimated,
    costUsd,
    costEstimated,
    basis: charge ? 'charged' : costEstimated || tokensEstimated ? 'estimate' : 'reported',
    finishReason: run.finishReason ?? charge?.finish_reason ?? null,
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
