/**
 * The prompt-cache replay: a recorded agent session sent turn by turn to a test upstream that
 * caches by prefix (`prefix-cache-upstream.ts`), once directly in the upstream's own wire and once
 * through the gateway, for each provider kind. Through the gateway, the cache must hit as often
 * as directly (the translation keeps every prefix byte-stable), and each turn's charge must be
 * the upstream's reported usage at the model's prices. Shared by the integration test (a few
 * turns) and `npm run bench` (all 30).
 */
import { generationRecordSchema } from '../../contract/gateway';
import { usageCost } from '../../gateway/billing/usage-cost';
import type { PublicFormName } from '../../gateway/canonical/model';
import type { ModelRoute } from '../../gateway/providers/provider';
import type { UpstreamKind } from '../../gateway/providers/upstream/provider-config';
import { eventually, getWithKey, toNanos } from '../gateway-support';
import { sessionRequest, type AgentSession } from './agent-session';
import type { PrefixCacheUpstream, ServedUsage } from './prefix-cache-upstream';
import { callForm } from './public-forms';
import type { UpstreamProviderSpec } from './upstream-kit';

/** Prices in nanos a token, as the vendors list them for comparable models. */
type Prices = Pick<
  ModelRoute,
  'promptNanos' | 'completionNanos' | 'cacheReadNanos' | 'cacheWriteNanos' | 'cacheWriteHourNanos'
>;

/** The model each kind serves in the replay, and its prices (Anthropic's: 1.25× and 2× writes). */
export const REPLAY_MODELS: Record<
  UpstreamKind,
  { provider: string; model: string; upstreamModel: string; prices: Prices }
> = {
  anthropic: {
    provider: 'cache-ant',
    model: 'replay/anthropic',
    upstreamModel: 'claude-upstream-1',
    prices: {
      promptNanos: 3_000,
      completionNanos: 15_000,
      cacheReadNanos: 300,
      cacheWriteNanos: 3_750,
      cacheWriteHourNanos: 6_000,
    },
  },
  'openai-compatible': {
    provider: 'cache-oai',
    model: 'replay/openai',
    upstreamModel: 'gpt-upstream-1',
    prices: { promptNanos: 1_250, completionNanos: 10_000, cacheReadNanos: 125 },
  },
  gemini: {
    provider: 'cache-gem',
    model: 'replay/gemini',
    upstreamModel: 'gemini-upstream-1',
    prices: { promptNanos: 300, completionNanos: 2_500, cacheReadNanos: 30 },
  },
};

/** Nanos → the decimal USD string the providers file takes. */
const usd = (nanos: number) => (nanos / 1e9).toFixed(9).replace(/0+$/, '');

/** The providers file's entries: one provider of each kind, all on the one test upstream. */
export function replayProviders(upstreamUrl: string): UpstreamProviderSpec[] {
  return (Object.keys(REPLAY_MODELS) as UpstreamKind[]).map((kind) => {
    const { provider, model, upstreamModel, prices } = REPLAY_MODELS[kind];
    return {
      id: provider,
      kind,
      url: upstreamUrl,
      retry: { max_attempts: 1 },
      models: [
        {
          id: model,
          upstreamModel,
          prompt: usd(prices.promptNanos),
          completion: usd(prices.completionNanos),
          ...(prices.cacheReadNanos !== undefined && { cacheRead: usd(prices.cacheReadNanos) }),
          ...(prices.cacheWriteNanos !== undefined && { cacheWrite: usd(prices.cacheWriteNanos) }),
          ...(prices.cacheWriteHourNanos !== undefined && {
            cacheWriteHour: usd(prices.cacheWriteHourNanos),
          }),
          maxCompletionTokens: 8_192,
          supportedParameters: ['max_tokens', 'tools', 'tool_choice'],
        },
      ],
    };
  });
}

export type ReplayRun = {
  turns: number;
  /** Summed over the turns, as the upstream reported them. */
  promptTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Of the prompt tokens, the share read from the cache. */
  hitRatio: number;
  /** The upstream's usage at the model's prices. */
  upstreamNanos: number;
  /** What the gateway charged, turn by turn (through the gateway only). */
  chargedNanos: number[];
  /** The upstream's usage priced, turn by turn. */
  pricedNanos: number[];
};

/** One comparison: the session sent directly, and through the gateway in a form. */
export type ReplayComparison = {
  kind: UpstreamKind;
  form: PublicFormName;
  direct: ReplayRun;
  gateway: ReplayRun;
};

const route = (kind: UpstreamKind) => ({ ...REPLAY_MODELS[kind].prices }) as ModelRoute;

function summarise(kind: UpstreamKind, served: ServedUsage[], charged: number[]): ReplayRun {
  const sum = (field: keyof Omit<ServedUsage, 'kind'>) =>
    served.reduce((total, usage) => total + usage[field], 0);
  const pricedNanos = served.map((usage) => usageCost(route(kind), usage));
  const promptTokens = sum('promptTokens');
  return {
    turns: served.length,
    promptTokens,
    cacheReadTokens: sum('cacheReadTokens'),
    cacheWriteTokens: sum('cacheWriteTokens'),
    hitRatio: promptTokens === 0 ? 0 : sum('cacheReadTokens') / promptTokens,
    upstreamNanos: pricedNanos.reduce((total, nanos) => total + nanos, 0),
    chargedNanos: charged,
    pricedNanos,
  };
}

/** The session in the upstream's own wire, sent straight to it under `key`. */
async function replayDirect(
  upstream: PrefixCacheUpstream,
  kind: UpstreamKind,
  session: AgentSession,
  key: string,
): Promise<ReplayRun> {
  upstream.clear();
  const { upstreamModel } = REPLAY_MODELS[kind];
  for (let turn = 0; turn < session.exchanges.length; turn += 1) {
    const options = { model: upstreamModel, breakpoints: kind === 'anthropic' };
    const [path, headers, form]: [string, Record<string, string>, PublicFormName] =
      kind === 'anthropic'
        ? ['/v1/messages', { 'x-api-key': key }, 'messages']
        : kind === 'openai-compatible'
          ? ['/v1/chat/completions', { authorization: `Bearer ${key}` }, 'chat_completions']
          : [
              `/v1beta/models/${upstreamModel}:generateContent`,
              { 'x-goog-api-key': key },
              'gemini',
            ];
    const response = await fetch(`${upstream.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(sessionRequest(form, session, turn, options)),
    });
    if (response.status !== 200) throw new Error(`Direct turn ${turn}: ${await response.text()}`);
    await response.json();
  }
  return summarise(kind, [...upstream.served], []);
}

/** The session in `form`, sent through the gateway to `kind`'s model; each turn's charge read. */
async function replayThroughGateway(
  upstream: PrefixCacheUpstream,
  gateway: { url: string; key: string },
  form: PublicFormName,
  kind: UpstreamKind,
  session: AgentSession,
): Promise<ReplayRun> {
  upstream.clear();
  const { model } = REPLAY_MODELS[kind];
  const charged: number[] = [];
  for (let turn = 0; turn < session.exchanges.length; turn += 1) {
    // Claude Code marks its breakpoints; a chat client marks them OpenRouter's way.
    const body = sessionRequest(form, session, turn, {
      model,
      breakpoints: form === 'messages' || form === 'chat_completions',
    });
    const response = await callForm(form, gateway.url, gateway.key, model, body);
    if (response.status !== 200) throw new Error(`Gateway turn ${turn}: ${await response.text()}`);
    await response.json();
    const cfRay = response.headers.get('cf-ray') ?? '';
    const record = await eventually(async () => {
      const found = await getWithKey(`${gateway.url}/v1/generation?id=${cfRay}`, gateway.key);
      return found.status === 200 ? generationRecordSchema.parse(await found.json()) : undefined;
    });
    charged.push(toNanos(record.cost_usd));
  }
  return summarise(kind, [...upstream.served], charged);
}

/**
 * Every comparison: Claude Code's Messages requests through the gateway to each kind, and a chat
 * client's (with OpenRouter's breakpoints) to Anthropic, each against the session sent directly.
 */
export async function replayAll(
  upstream: PrefixCacheUpstream,
  gateway: { url: string; key: string },
  session: AgentSession,
  directKey: string,
): Promise<ReplayComparison[]> {
  const plan: Array<[PublicFormName, UpstreamKind]> = [
    ['messages', 'anthropic'],
    ['chat_completions', 'anthropic'],
    ['messages', 'openai-compatible'],
    ['messages', 'gemini'],
  ];
  const comparisons: ReplayComparison[] = [];
  for (const [form, kind] of plan) {
    const direct = await replayDirect(upstream, kind, session, directKey);
    const through = await replayThroughGateway(upstream, gateway, form, kind, session);
    comparisons.push({ kind, form, direct, gateway: through });
  }
  return comparisons;
}
